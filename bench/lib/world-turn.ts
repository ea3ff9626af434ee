/**
 * The world turn the world and observability benches run: 100 subjects, each one
 * before_subject_workflow ambient source (the toy weather), an LLM tool loop with one tool call
 * (the toy drinking fountain) and a final patch, against the zero-latency scripted model — 400
 * source calls a turn.
 */
import { canonicalJson, sha256Hex } from '../../src/core/index.ts';
import type { ScriptRule } from '../../src/dev/scripted-model/index.ts';
import { TOY_URL_ENV } from '../../src/dev/toys/index.ts';
import {
  assembleScenario,
  putCognitionProfile,
  putCognitionWorkflow,
  putEnvironment,
  putJsonSchema,
  putResponseSource,
  putWorldPatchSchema,
} from '../../src/runtimes/world/index.ts';
import type { Store } from '../../src/store/store.ts';
import { scriptedModel, startDevServices } from './dev-services.ts';

export const TURN_SUBJECTS = 100;

/** The scripted model's rules: subject `e<i>` calls the fountain, then sends its final patch. */
export function turnModelRules(subjects: number): ScriptRule[] {
  const rules: ScriptRule[] = [];
  for (let i = 0; i < subjects; i++) {
    rules.push({
      match: { subject: `e${i}`, last_message_contains: 'Tool result' },
      reply: {
        json: {
          kind: 'final_patch',
          tool_call: null,
          patch: {
            narration: 'done',
            effects: [{ op: 'set_entity_state', entity_id: `e${i}`, state: 'refreshed' }],
          },
        },
      },
    });
    rules.push({
      match: { subject: `e${i}` },
      reply: {
        json: {
          kind: 'tool_call',
          tool_call: { name: 'use_drinking_fountain', arguments: { actor_id: `e${i}`, turn: 1 } },
          patch: null,
        },
      },
    });
  }
  return rules;
}

/** The turn's sources, schemas and cognition workflow, stored. */
export async function putTurnWorkflow(store: Store, toys: { weather: unknown; fountain: unknown }) {
  const llm = await putResponseSource(store, {
    version: 1,
    label: 'chat',
    interface: { name: 'llm_chat_completions', model: '@chat', schema_delivery: 'response_format' },
  });
  const weather = await putResponseSource(store, toys.weather);
  const fountain = await putResponseSource(store, toys.fountain);
  const args = await putJsonSchema(store, {
    type: 'object',
    required: ['actor_id', 'turn'],
    properties: { actor_id: { type: 'string' }, turn: { type: 'integer' } },
  });
  const wp = await putWorldPatchSchema(store);
  const workflow = await putCognitionWorkflow(store, {
    version: 1,
    execution: 'per_subject_ordered',
    ambient_sources: [
      {
        id: 'weather',
        source_ref: weather,
        run: 'before_subject_workflow',
        scope: 'acting_subject',
        visible_to: 'acting_subject',
        request_template: { turn: { $from: '/world/attempted_turn' } },
        inject_as: '/ambient/weather',
      },
    ],
    nodes: [
      {
        id: 'act',
        type: 'llm_tool_loop',
        llm_source_ref: llm,
        prompt_template: {
          messages: [
            { role: 'user', content: '{{subject.rendered}} {{ambient.visible}} {{tools.available}}' },
          ],
        },
        available_tools: [
          {
            name: 'use_drinking_fountain',
            description: 'drink',
            source_ref: fountain,
            arguments_schema_ref: args,
          },
        ],
        max_generation_attempts: 1,
        max_tool_calls: 1,
        final_schema_ref: wp,
      },
    ],
    apply: { from: 'act.final' },
  });
  return { llm, weather, fountain, args, wp, workflow };
}

/** Entity documents written in one transaction (the put path is one transaction per document). */
export async function bulkEntities(
  store: Store,
  n: number,
  agents: number,
): Promise<Array<{ hash: string }>> {
  const refs: Array<{ hash: string }> = [];
  await store.transaction(async (tx) => {
    for (let i = 0; i < n; i++) {
      const doc = {
        version: 1,
        entity_id: `e${i}`,
        kind: i < agents ? 'agent' : 'prop',
        environment_label: `env${i % 100}`,
        state: `state of e${i}`,
        ...(i < agents ? { memory: '' } : {}),
      };
      const text = canonicalJson(doc);
      const hash = sha256Hex(text);
      await tx.run(
        'INSERT INTO entities (hash, content, label, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (hash) DO NOTHING',
        [hash, text, doc.entity_id, Date.now()],
      );
      refs.push({ hash });
    }
  });
  return refs;
}

/** A scenario of `entities` entities (100 environments), the first `subjects` acting by `workflow`. */
export async function turnScenario(
  store: Store,
  entities: number,
  subjects: number,
  workflow: { hash: string },
): Promise<string> {
  const envs = [];
  for (let i = 0; i < 100; i++)
    envs.push(await putEnvironment(store, { version: 1, label: `env${i}`, content: `place ${i}` }));
  const profile = await putCognitionProfile(store, { version: 1, label: 'bench', workflow_ref: workflow });
  const ents = await bulkEntities(store, entities, Math.max(subjects, 1));
  return (
    await assembleScenario(store, {
      version: 1,
      label: 'bench',
      environments: envs,
      entities: ents,
      subjects: Array.from({ length: subjects }, (_, i) => ({
        entity_id: `e${i}`,
        cognition_profile_ref: profile,
      })),
    })
  ).hash;
}

/**
 * The turn's scripted model and toy services in processes of their own (`noema dev scripted-model`,
 * `noema dev toys`), as a user's providers are: their serving is not the runs' thread's work.
 * `env` points the turn's sources at them.
 */
export async function startTurnServices(
  subjects: number,
): Promise<{ env: Record<string, string>; close(): Promise<void> }> {
  const { urls, close } = await startDevServices([
    scriptedModel({ rules: turnModelRules(subjects) }),
    { args: ['dev', 'toys', '--port', '0'], ready: /toy services serving on (\S+)/ },
  ]);
  const [modelUrl, toysUrl] = urls;
  return {
    env: {
      ...Object.fromEntries(TOY_URL_ENV.map((name) => [name, toysUrl!])),
      NOEMA_LLM_BASE_URL: modelUrl!,
      NOEMA_LLM_MODEL: 'scripted',
    },
    close,
  };
}
