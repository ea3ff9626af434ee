/**
 * The structural rules of one cognition workflow (seed 004 "Scenario store / assembly
 * validation"), reported as problems rather than thrown so assembly can list every one.
 * Checks that need the scenario (scopes name its entities) live in `assemble.ts`.
 */

import { parsePointer, unsafePointerReason } from '../../core/json-pointer.ts';
import type { AmbientTarget } from './documents.ts';
import { FROM_ROOTS, fromPointers, PROMPT_VARIABLES, promptVariables } from './templates.ts';
import { WORLD_PATCH_SCHEMA_HASH } from './world-patch.ts';

export interface Problem {
  code: string;
  path: string;
  message: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isRef = (v: unknown) => isObj(v) && typeof v.hash === 'string' && /^[0-9a-f]{64}$/.test(v.hash);
const HUMAN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/** `"all_subjects" | "acting_subject" | "world" | { environment_label } | { entity_id }`, per field. */
function targetProblem(v: unknown, allowed: readonly string[]): string | null {
  if (typeof v === 'string')
    return allowed.includes(v)
      ? null
      : `"${v}" is not one of ${allowed.join(', ')}, {environment_label}, {entity_id}`;
  if (!isObj(v)) return 'must be a string or an object';
  const keys = Object.keys(v);
  if (keys.length !== 1 || !['environment_label', 'entity_id'].includes(keys[0]!))
    return 'an object target has exactly one of environment_label or entity_id';
  return typeof v[keys[0]!] === 'string' ? null : `${keys[0]} must be a string`;
}

/** Entities and environments a target names, for the scenario-level check. */
export function namedTargets(t: unknown): { entity_id?: string; environment_label?: string } {
  return isObj(t) ? (t as { entity_id?: string; environment_label?: string }) : {};
}

/**
 * `finalSchemas`: each stored final schema's difference from the WorldPatch schema, as assembly
 * resolved it — null when structurally equivalent, else the JSON pointer where it first differs
 * (`worldPatchDifference`); a hash it lacks is not stored (UNKNOWN_REFERENCE says so). Without it,
 * only the canonical WorldPatch schema's hash passes.
 */
export function checkWorkflow(
  doc: Obj,
  base: string,
  llmSourceHashes: ReadonlySet<string>,
  finalSchemas?: ReadonlyMap<string, string | null>,
): Problem[] {
  const problems: Problem[] = [];
  const add = (code: string, path: string, message: string) =>
    problems.push({ code, path: `${base}${path}`, message });
  if (doc.version !== 1) add('WORKFLOW_VERSION_UNSUPPORTED', '/version', 'workflow version must be 1');
  if (doc.execution !== 'per_subject_ordered')
    add('WORKFLOW_EXECUTION_UNSUPPORTED', '/execution', 'execution must be "per_subject_ordered"');

  const ambient = doc.ambient_sources ?? [];
  if (!Array.isArray(ambient)) add('INVALID_FIELD', '/ambient_sources', 'ambient_sources must be an array');
  const ambientIds = new Set<string>();
  (Array.isArray(ambient) ? ambient : []).forEach((a: unknown, i) => {
    const p = `/ambient_sources/${i}`;
    if (!isObj(a)) {
      add('INVALID_FIELD', p, 'an ambient source is an object');
      return;
    }
    for (const f of ['id', 'source_ref', 'run', 'scope', 'visible_to', 'request_template', 'inject_as'])
      if (a[f] === undefined) add('MISSING_FIELD', `${p}/${f}`, `ambient source needs "${f}"`);
    if (a.id !== undefined) {
      if (typeof a.id !== 'string' || !HUMAN.test(a.id))
        add('INVALID_FIELD', `${p}/id`, 'id must be a human id');
      else if (ambientIds.has(a.id))
        add('DUPLICATE_AMBIENT_SOURCE_ID', `${p}/id`, `ambient source id "${a.id}" is used twice`);
      else ambientIds.add(a.id);
    }
    if (a.source_ref !== undefined && !isRef(a.source_ref))
      add('INVALID_FIELD', `${p}/source_ref`, 'source_ref is { hash }');
    if (a.result_schema_ref !== undefined && !isRef(a.result_schema_ref))
      add('INVALID_FIELD', `${p}/result_schema_ref`, 'result_schema_ref is { hash }');
    const run = a.run;
    if (run !== undefined && run !== 'once_per_turn' && run !== 'before_subject_workflow')
      add(
        'AMBIENT_RUN_UNSUPPORTED',
        `${p}/run`,
        'run is "once_per_turn" or "before_subject_workflow" (no scheduler, no cron)',
      );
    const turnLevel = run === 'once_per_turn';
    if (a.scope !== undefined) {
      const why = targetProblem(a.scope, turnLevel ? ['world'] : ['world', 'acting_subject']);
      if (why) add('AMBIENT_SCOPE_INVALID', `${p}/scope`, `scope ${why}`);
    }
    if (a.visible_to !== undefined) {
      const why = targetProblem(
        a.visible_to,
        turnLevel ? ['all_subjects'] : ['all_subjects', 'acting_subject'],
      );
      if (why) add('AMBIENT_VISIBILITY_INVALID', `${p}/visible_to`, `visible_to ${why}`);
    }
    if (a.inject_as !== undefined) {
      const tokens = typeof a.inject_as === 'string' ? parsePointer(a.inject_as) : null;
      const unsafe = unsafePointerReason(a.inject_as);
      if (tokens?.[0] !== 'ambient' || tokens.length < 2 || unsafe)
        add(
          'INJECT_AS_INVALID',
          `${p}/inject_as`,
          `inject_as is a JSON pointer under /ambient with no "__proto__", "constructor" or "prototype" token, e.g. "/ambient/environments/park/weather"${unsafe && tokens ? ` (it ${unsafe})` : ''}`,
        );
    }
    for (const f of fromPointers(a.request_template)) {
      const tokens = typeof f.pointer === 'string' ? parsePointer(f.pointer) : null;
      const [root, key] = tokens ?? [];
      const known =
        tokens?.length === 2 &&
        ((root === 'world' && (FROM_ROOTS.world as readonly string[]).includes(key!)) ||
          (root === 'subject' && !turnLevel && (FROM_ROOTS.subject as readonly string[]).includes(key!)));
      if (!known)
        add(
          'TEMPLATE_PATH_INVALID',
          `${p}/request_template${f.path}`,
          `$from "${String(f.pointer)}" is not a known path${root === 'subject' && turnLevel ? ' (once_per_turn sources have no subject)' : ''}`,
        );
    }
  });

  const nodes = doc.nodes;
  if (!Array.isArray(nodes) || nodes.length === 0)
    add('MISSING_FIELD', '/nodes', 'a workflow has at least one node');
  const nodeIds = new Set<string>();
  (Array.isArray(nodes) ? nodes : []).forEach((n: unknown, i) => {
    const p = `/nodes/${i}`;
    if (!isObj(n)) {
      add('INVALID_FIELD', p, 'a node is an object');
      return;
    }
    if (typeof n.id !== 'string' || !HUMAN.test(n.id))
      add('MISSING_FIELD', `${p}/id`, 'node needs a human id');
    else if (nodeIds.has(n.id)) add('DUPLICATE_NODE_ID', `${p}/id`, `node id "${n.id}" is used twice`);
    else nodeIds.add(n.id);
    if (n.type !== 'llm_tool_loop') {
      add('UNKNOWN_NODE_TYPE', `${p}/type`, 'the only node type is "llm_tool_loop"');
      return;
    }
    if (!isRef(n.llm_source_ref))
      add('MISSING_FIELD', `${p}/llm_source_ref`, 'llm_tool_loop needs llm_source_ref { hash }');
    else if (!llmSourceHashes.has((n.llm_source_ref as { hash: string }).hash))
      add(
        'LLM_SOURCE_NOT_LLM',
        `${p}/llm_source_ref`,
        'llm_source_ref must name an llm_chat_completions source',
      );
    if (!Number.isInteger(n.max_generation_attempts) || (n.max_generation_attempts as number) < 1)
      add(
        n.max_generation_attempts === undefined ? 'MISSING_FIELD' : 'INVALID_FIELD',
        `${p}/max_generation_attempts`,
        'max_generation_attempts is an integer >= 1',
      );
    if (!Number.isInteger(n.max_tool_calls) || (n.max_tool_calls as number) < 0)
      add(
        n.max_tool_calls === undefined ? 'MISSING_FIELD' : 'INVALID_FIELD',
        `${p}/max_tool_calls`,
        'max_tool_calls is an integer >= 0',
      );
    if (!isRef(n.final_schema_ref))
      add('MISSING_FIELD', `${p}/final_schema_ref`, 'llm_tool_loop needs final_schema_ref { hash }');
    else {
      const hash = (n.final_schema_ref as { hash: string }).hash;
      const difference =
        hash === WORLD_PATCH_SCHEMA_HASH ? null : finalSchemas ? finalSchemas.get(hash) : '/';
      if (typeof difference === 'string')
        add(
          'FINAL_SCHEMA_NOT_WORLD_PATCH',
          `${p}/final_schema_ref`,
          `the final schema must be the WorldPatch schema (${WORLD_PATCH_SCHEMA_HASH}) or structurally equivalent to it (equal once annotations such as title and description are dropped); this one differs at ${difference}`,
        );
    }
    const messages = isObj(n.prompt_template) ? n.prompt_template.messages : undefined;
    if (!Array.isArray(messages) || messages.length === 0)
      add('MISSING_FIELD', `${p}/prompt_template/messages`, 'prompt_template.messages is a non-empty array');
    else
      messages.forEach((m: unknown, j) => {
        const mp = `${p}/prompt_template/messages/${j}`;
        if (
          !isObj(m) ||
          !['system', 'user', 'assistant'].includes(m.role as string) ||
          typeof m.content !== 'string'
        ) {
          add('INVALID_FIELD', mp, 'a message is { role: system|user|assistant, content: string }');
          return;
        }
        for (const v of promptVariables(m.content))
          if (!(PROMPT_VARIABLES as readonly string[]).includes(v))
            add(
              'TEMPLATE_UNKNOWN_VARIABLE',
              `${mp}/content`,
              `unknown template variable {{${v}}}; known: ${PROMPT_VARIABLES.join(', ')}`,
            );
      });
    const tools = n.available_tools ?? [];
    if (!Array.isArray(tools)) {
      add('INVALID_FIELD', `${p}/available_tools`, 'available_tools is an array');
      return;
    }
    const names = new Set<string>();
    tools.forEach((t: unknown, j) => {
      const tp = `${p}/available_tools/${j}`;
      if (!isObj(t)) {
        add('INVALID_FIELD', tp, 'a tool is an object');
        return;
      }
      if (typeof t.name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(t.name))
        add('MISSING_FIELD', `${tp}/name`, 'tool needs a name ([a-zA-Z0-9_-], 1-64)');
      else if (names.has(t.name))
        add('DUPLICATE_TOOL_NAME', `${tp}/name`, `tool "${t.name}" is listed twice in this node`);
      else names.add(t.name);
      if (typeof t.description !== 'string' || t.description.length === 0)
        add('MISSING_FIELD', `${tp}/description`, 'tool needs a description');
      if (!isRef(t.source_ref)) add('MISSING_FIELD', `${tp}/source_ref`, 'tool needs source_ref { hash }');
      if (!isRef(t.arguments_schema_ref))
        add('MISSING_FIELD', `${tp}/arguments_schema_ref`, 'tool needs arguments_schema_ref { hash }');
      if (t.result_schema_ref !== undefined && !isRef(t.result_schema_ref))
        add('INVALID_FIELD', `${tp}/result_schema_ref`, 'result_schema_ref is { hash }');
      if (t.idempotent !== undefined && typeof t.idempotent !== 'boolean')
        add('INVALID_FIELD', `${tp}/idempotent`, 'idempotent is true or false (default false)');
    });
  });

  const from = isObj(doc.apply) ? doc.apply.from : undefined;
  const m = typeof from === 'string' ? /^(.+)\.final$/.exec(from) : null;
  if (!m || !nodeIds.has(m[1]!))
    add('APPLY_FROM_INVALID', '/apply/from', 'apply.from names a node\'s final output, e.g. "act.final"');
  return problems;
}

export type { AmbientTarget };
