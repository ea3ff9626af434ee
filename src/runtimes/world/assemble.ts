/**
 * `assemble_scenario`: checks a scenario and everything it reaches (profiles → workflows →
 * sources and schemas, environments, entities, subjects) against seed 004's validation list,
 * reports EVERY problem at once (`SCENARIO_INVALID`, `details.problems[]`), and stores it only
 * when none is found. It calls no source and no LLM.
 */
import { NoemaError } from '../../core/errors.ts';
import { type JsonSchema, schemas } from '../../core/schema-registry.ts';
import type { Queryable, Store } from '../../store/store.ts';
import { type ComponentKind, putDocument, type Ref, TABLE, workflowRefs } from './components.ts';
import {
  type CognitionWorkflow,
  type EntityDoc,
  type EnvironmentDoc,
  type ProfileDoc,
  SCENARIO_SCHEMA,
  type ScenarioDoc,
} from './documents.ts';
import { worldPatchDifference } from './schema-equivalence.ts';
import { toolArgumentsDelivery } from './tool-loop-output.ts';
import { checkWorkflow, namedTargets, type Problem } from './workflow-check.ts';

async function load<T>(q: Queryable, kind: ComponentKind, hash: string): Promise<T | null> {
  const row = await q.get<{ content: string }>(`SELECT content FROM ${TABLE[kind]} WHERE hash = ?`, [hash]);
  return row ? (JSON.parse(row.content) as T) : null;
}

async function interfaceOf(q: Queryable, hash: string): Promise<string | null> {
  const row = await q.get<{ interface_name: string }>(
    'SELECT interface_name FROM response_sources WHERE hash = ?',
    [hash],
  );
  return row?.interface_name ?? null;
}

export interface AssembledSubject {
  entity_id: string;
  profile_hash: string;
  workflow_hash: string;
}

/** Every problem of a scenario document; empty when it can be stored and run. */
export async function scenarioProblems(q: Queryable, doc: unknown): Promise<Problem[]> {
  const shape = schemas.validate<ScenarioDoc>(SCENARIO_SCHEMA, doc);
  if (!shape.ok)
    return shape.errors.map((e) => ({ code: 'INVALID_FIELD', path: e.path || '/', message: e.message }));
  const s = shape.value;
  const problems: Problem[] = [];
  const add = (code: string, path: string, message: string) => problems.push({ code, path, message });

  const envLabels = new Set<string>();
  for (const [i, ref] of s.environments.entries()) {
    const env = await load<EnvironmentDoc>(q, 'environment', ref.hash);
    if (!env) add('UNKNOWN_REFERENCE', `/environments/${i}`, `no environment with hash ${ref.hash}`);
    else if (envLabels.has(env.label))
      add('DUPLICATE_ENVIRONMENT_LABEL', `/environments/${i}`, `environment "${env.label}" appears twice`);
    else envLabels.add(env.label);
  }
  const entities = new Map<string, EntityDoc>();
  for (const [i, ref] of s.entities.entries()) {
    const e = await load<EntityDoc>(q, 'entity', ref.hash);
    if (!e) add('UNKNOWN_REFERENCE', `/entities/${i}`, `no entity with hash ${ref.hash}`);
    else if (entities.has(e.entity_id))
      add('DUPLICATE_ENTITY_ID', `/entities/${i}`, `entity "${e.entity_id}" appears twice`);
    else {
      entities.set(e.entity_id, e);
      if (!envLabels.has(e.environment_label))
        add(
          'ENTITY_UNKNOWN_ENVIRONMENT',
          `/entities/${i}`,
          `entity "${e.entity_id}" is in environment "${e.environment_label}", which this scenario does not include`,
        );
    }
  }

  const checked = new Set<string>();
  const seen = new Set<string>();
  for (const [i, subject] of s.subjects.entries()) {
    const p = `/subjects/${i}`;
    const entity = entities.get(subject.entity_id);
    if (seen.has(subject.entity_id))
      add('DUPLICATE_SUBJECT', `${p}/entity_id`, `"${subject.entity_id}" is a subject twice`);
    seen.add(subject.entity_id);
    if (!entity)
      add(
        'UNKNOWN_SUBJECT',
        `${p}/entity_id`,
        `subject "${subject.entity_id}" is not an entity of this scenario`,
      );
    else if (entity.kind !== 'agent')
      add(
        'SUBJECT_NOT_AGENT',
        `${p}/entity_id`,
        `subject "${subject.entity_id}" is a prop; only agents run workflows`,
      );
    const profile = await load<ProfileDoc>(q, 'cognition_profile', subject.cognition_profile_ref.hash);
    if (!profile) {
      add(
        'UNKNOWN_REFERENCE',
        `${p}/cognition_profile_ref`,
        `no cognition profile with hash ${subject.cognition_profile_ref.hash}`,
      );
      continue;
    }
    const wfHash = profile.workflow_ref?.hash;
    if (!wfHash) {
      add(
        'PROFILE_WITHOUT_WORKFLOW',
        `${p}/cognition_profile_ref`,
        'the profile names no workflow; there is no default workflow',
      );
      continue;
    }
    const wf = await load<Record<string, unknown>>(q, 'cognition_workflow', wfHash);
    if (!wf) {
      add(
        'UNKNOWN_REFERENCE',
        `${p}/cognition_profile_ref`,
        `the profile's workflow ${wfHash} is not stored`,
      );
      continue;
    }
    const base = `/workflows/${wfHash}`;
    if (!checked.has(wfHash)) {
      checked.add(wfHash);
      const refs = workflowRefs(wf);
      const llmSources = new Set<string>();
      const finalSchemas = new Map<string, string | null>();
      for (const r of refs) {
        if (r.kind === 'response_source') {
          const iface = await interfaceOf(q, r.hash);
          if (iface === null)
            add('UNKNOWN_REFERENCE', `${base}${r.path}`, `no response source with hash ${r.hash}`);
          else if (iface === 'llm_chat_completions') llmSources.add(r.hash);
          continue;
        }
        const found = await load(q, r.kind, r.hash);
        if (found === null) add('UNKNOWN_REFERENCE', `${base}${r.path}`, `no ${r.kind} with hash ${r.hash}`);
        else if (r.path.endsWith('/final_schema_ref') && !finalSchemas.has(r.hash))
          finalSchemas.set(r.hash, worldPatchDifference(found));
        else if (r.path.endsWith('/arguments_schema_ref')) {
          // Sent to the model inside the ToolLoopOutput schema, in the strict subset.
          const d = toolArgumentsDelivery(found as JsonSchema);
          for (const v of d.ok ? [] : d.violations)
            add('TOOL_SCHEMA_NOT_STRICT', `${base}${r.path}`, `${v.path || '/'}: ${v.message}`);
        }
      }
      problems.push(...checkWorkflow(wf, base, llmSources, finalSchemas));
      // Scopes and visibility must name this scenario's entities and environments.
      const ambient = Array.isArray(wf.ambient_sources)
        ? (wf.ambient_sources as Array<Record<string, unknown>>)
        : [];
      ambient.forEach((a, j) => {
        for (const field of ['scope', 'visible_to'] as const) {
          const t = namedTargets(a?.[field]);
          const path = `${base}/ambient_sources/${j}/${field}`;
          if (typeof t.entity_id === 'string' && !entities.has(t.entity_id))
            add(
              'SCOPE_UNKNOWN_ENTITY',
              path,
              `${field} names entity "${t.entity_id}", which this scenario does not include`,
            );
          if (typeof t.environment_label === 'string' && !envLabels.has(t.environment_label))
            add(
              'SCOPE_UNKNOWN_ENVIRONMENT',
              path,
              `${field} names environment "${t.environment_label}", which this scenario does not include`,
            );
        }
      });
    }
  }
  return problems;
}

/** Validates and stores a scenario; SCENARIO_INVALID lists every problem and stores nothing. */
export async function assembleScenario(store: Store, doc: unknown): Promise<{ hash: string }> {
  const problems = await scenarioProblems(store, doc);
  if (problems.length > 0) {
    throw new NoemaError(
      'SCENARIO_INVALID',
      `the scenario has ${problems.length} problem(s); nothing was stored`,
      {
        details: { problems },
        hint: 'fix every listed problem (path is a JSON pointer; /workflows/<hash>/… points into that workflow) and assemble again',
        status: 400,
      },
    );
  }
  const s = doc as ScenarioDoc;
  const refs: Ref[] = [
    ...s.environments.map((r, i) => ({
      path: `/environments/${i}`,
      hash: r.hash,
      kind: 'environment' as const,
    })),
    ...s.entities.map((r, i) => ({ path: `/entities/${i}`, hash: r.hash, kind: 'entity' as const })),
    ...s.subjects.map((x, i) => ({
      path: `/subjects/${i}`,
      hash: x.cognition_profile_ref.hash,
      kind: 'cognition_profile' as const,
    })),
  ];
  return putDocument(store, 'scenario', s, refs, s.label);
}

/** A stored scenario with everything a turn needs, resolved. */
export interface LoadedScenario {
  hash: string;
  doc: ScenarioDoc;
  environments: EnvironmentDoc[];
  entities: EntityDoc[];
  subjects: AssembledSubject[];
  workflows: Map<string, CognitionWorkflow>;
}

export async function loadScenario(
  q: Queryable,
  hash: string,
  options: { entities?: boolean } = {},
): Promise<LoadedScenario> {
  const doc = await load<ScenarioDoc>(q, 'scenario', hash);
  if (!doc)
    throw new NoemaError('UNKNOWN_SCENARIO', `no scenario with hash ${hash}`, {
      details: { hash },
      status: 404,
    });
  const environments: EnvironmentDoc[] = [];
  for (const r of doc.environments)
    environments.push((await load<EnvironmentDoc>(q, 'environment', r.hash))!);
  const entities: EntityDoc[] = [];
  // A turn reads entities from the world's versions, not the scenario: only create_world needs them.
  if (options.entities !== false)
    for (const r of doc.entities) entities.push((await load<EntityDoc>(q, 'entity', r.hash))!);
  const subjects: AssembledSubject[] = [];
  const workflows = new Map<string, CognitionWorkflow>();
  for (const s of doc.subjects) {
    const profile = (await load<ProfileDoc>(q, 'cognition_profile', s.cognition_profile_ref.hash))!;
    const wh = profile.workflow_ref.hash;
    if (!workflows.has(wh)) workflows.set(wh, (await load<CognitionWorkflow>(q, 'cognition_workflow', wh))!);
    subjects.push({ entity_id: s.entity_id, profile_hash: s.cognition_profile_ref.hash, workflow_hash: wh });
  }
  return { hash, doc, environments, entities, subjects, workflows };
}
