/**
 * Content-addressed components: puts (canonical JSON + sha256, idempotent, every reference
 * must already exist), gets, listings and reverse references (`list_uses_of`). JSON Schemas and
 * response sources are the sources layer's documents; this module adds the world's kinds.
 */
import type { ErrorCode } from '../../core/errors.ts';
import { canonicalJson, invalidInput, NoemaError, sha256Hex } from '../../core/index.ts';
import { type JsonSchema, schemas } from '../../core/schema-registry.ts';
import { getJsonSchema, getResponseSource, putJsonSchema, putResponseSource } from '../../sources/index.ts';
import type { Queryable, Store } from '../../store/store.ts';
import {
  ENTITY_SCHEMA,
  ENVIRONMENT_SCHEMA,
  type EntityDoc,
  OBSOLETE_PROFILE_FIELDS,
  PROFILE_SCHEMA,
  WORKFLOW_OUTER_SCHEMA,
} from './documents.ts';
import {
  WORLD_PATCH_SCHEMA,
  WORLD_PATCH_SCHEMA_HASH,
  WORLD_PATCH_SCHEMA_LABEL,
} from './world-patch-schema.ts';

export const COMPONENT_KINDS = [
  'json_schema',
  'response_source',
  'cognition_workflow',
  'cognition_profile',
  'environment',
  'entity',
  'scenario',
] as const;
export type ComponentKind = (typeof COMPONENT_KINDS)[number];

export const TABLE: Record<ComponentKind, string> = {
  json_schema: 'json_schemas',
  response_source: 'response_sources',
  cognition_workflow: 'cognition_workflows',
  cognition_profile: 'cognition_profiles',
  environment: 'environments',
  entity: 'entities',
  scenario: 'scenarios',
};

const UNKNOWN_CODE: Record<ComponentKind, ErrorCode> = {
  json_schema: 'UNKNOWN_JSON_SCHEMA',
  response_source: 'UNKNOWN_RESPONSE_SOURCE',
  cognition_workflow: 'UNKNOWN_COGNITION_WORKFLOW',
  cognition_profile: 'UNKNOWN_COGNITION_PROFILE',
  environment: 'UNKNOWN_ENVIRONMENT',
  entity: 'UNKNOWN_ENTITY',
  scenario: 'UNKNOWN_SCENARIO',
};

export interface Ref {
  path: string;
  hash: string;
  kind: ComponentKind;
}

function check<T>(schema: JsonSchema, doc: unknown, what: string): T {
  const r = schemas.validate<T>(schema, doc);
  if (!r.ok)
    throw invalidInput(`${what} is invalid: ${r.errors[0]?.path || '/'} ${r.errors[0]?.message}`, {
      errors: r.errors,
    });
  return r.value;
}

const isRef = (v: unknown): v is { hash: string } =>
  typeof v === 'object' && v !== null && typeof (v as { hash?: unknown }).hash === 'string';

/** The references a workflow makes, wherever they are well-formed (assembly reports the rest). */
export function workflowRefs(doc: Record<string, unknown>): Ref[] {
  const refs: Ref[] = [];
  const add = (v: unknown, path: string, kind: ComponentKind) => {
    if (isRef(v)) refs.push({ path, hash: v.hash, kind });
  };
  const arr = (v: unknown) => (Array.isArray(v) ? (v as Array<Record<string, unknown>>) : []);
  arr(doc.ambient_sources).forEach((a, i) => {
    add(a?.source_ref, `/ambient_sources/${i}/source_ref`, 'response_source');
    add(a?.result_schema_ref, `/ambient_sources/${i}/result_schema_ref`, 'json_schema');
  });
  arr(doc.nodes).forEach((n, i) => {
    add(n?.llm_source_ref, `/nodes/${i}/llm_source_ref`, 'response_source');
    add(n?.final_schema_ref, `/nodes/${i}/final_schema_ref`, 'json_schema');
    arr(n?.available_tools).forEach((t, j) => {
      const p = `/nodes/${i}/available_tools/${j}`;
      add(t?.source_ref, `${p}/source_ref`, 'response_source');
      add(t?.arguments_schema_ref, `${p}/arguments_schema_ref`, 'json_schema');
      add(t?.result_schema_ref, `${p}/result_schema_ref`, 'json_schema');
    });
  });
  return refs;
}

/** Which refs do not resolve (one query per distinct ref). */
export async function missingRefs(q: Queryable, refs: readonly Ref[]): Promise<Ref[]> {
  const missing: Ref[] = [];
  const seen = new Map<string, boolean>();
  for (const r of refs) {
    const key = `${r.kind}:${r.hash}`;
    let ok = seen.get(key);
    if (ok === undefined) {
      ok = !!(await q.get(`SELECT 1 AS x FROM ${TABLE[r.kind]} WHERE hash = ?`, [r.hash]));
      seen.set(key, ok);
    }
    if (!ok) missing.push(r);
  }
  return missing;
}

function refuseMissing(missing: Ref[], what: string): void {
  if (missing.length === 0) return;
  throw new NoemaError(
    'UNKNOWN_REFERENCE',
    `${what} references ${missing.length} component(s) that are not stored`,
    {
      details: { missing },
      hint: 'put the referenced schemas, sources and components first; refs are { "hash": "<sha256>" }',
      status: 400,
    },
  );
}

/** Stores one document of a world kind with its reference edges; idempotent. */
export async function putDocument(
  store: Store,
  kind: ComponentKind,
  doc: unknown,
  refs: readonly Ref[],
  label: string | null,
): Promise<{ hash: string }> {
  const text = canonicalJson(doc);
  const hash = sha256Hex(text);
  await store.transaction(async (tx) => {
    refuseMissing(await missingRefs(tx, refs), kind.replace('_', ' '));
    const r = await tx.run(
      `INSERT INTO ${TABLE[kind]} (hash, content, label, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (hash) DO NOTHING`,
      [hash, text, label, Date.now()],
    );
    if (r.changes === 0) return;
    for (const ref of new Map(refs.map((x) => [x.hash, x])).values()) {
      await tx.run(
        'INSERT INTO component_refs (from_hash, from_kind, to_hash, to_kind) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
        [hash, kind, ref.hash, ref.kind],
      );
    }
  });
  return { hash };
}

export async function putCognitionWorkflow(store: Store, doc: unknown): Promise<{ hash: string }> {
  const w = check<Record<string, unknown>>(WORKFLOW_OUTER_SCHEMA, doc, 'cognition workflow');
  return putDocument(store, 'cognition_workflow', w, workflowRefs(w), null);
}

export async function putCognitionProfile(store: Store, doc: unknown): Promise<{ hash: string }> {
  if (doc && typeof doc === 'object') {
    const old = OBSOLETE_PROFILE_FIELDS.filter((f) => Object.hasOwn(doc, f));
    if (old.length > 0) {
      throw new NoemaError(
        'OBSOLETE_PROFILE_SHAPE',
        `cognition profiles no longer carry ${old.join(', ')}: the perceive/intend/adjudicate path was removed`,
        {
          details: { fields: old },
          hint: 'author a cognition workflow (put_cognition_workflow) and send { "version": 1, "label", "workflow_ref": { "hash" } }',
          status: 400,
        },
      );
    }
  }
  const p = check<{ label: string; workflow_ref: { hash: string } }>(
    PROFILE_SCHEMA,
    doc,
    'cognition profile',
  );
  const refs: Ref[] = [{ path: '/workflow_ref', hash: p.workflow_ref.hash, kind: 'cognition_workflow' }];
  return putDocument(store, 'cognition_profile', p, refs, p.label);
}

export async function putEnvironment(store: Store, doc: unknown): Promise<{ hash: string }> {
  const e = check<{ label: string }>(ENVIRONMENT_SCHEMA, doc, 'environment');
  return putDocument(store, 'environment', e, [], e.label);
}

export async function putEntity(store: Store, doc: unknown): Promise<{ hash: string }> {
  const e = check<EntityDoc>(ENTITY_SCHEMA, doc, 'entity');
  if (e.kind === 'prop' && e.memory !== undefined)
    throw invalidInput('props have no memory; drop "memory" or make the entity an agent', {
      entity_id: e.entity_id,
    });
  return putDocument(store, 'entity', e, [], e.entity_id);
}

export { putJsonSchema, putResponseSource };

/** The kernel-owned WorldPatch schema, stored so workflows can reference it by hash. */
export function putWorldPatchSchema(q: Queryable): Promise<{ hash: string }> {
  return putJsonSchema(q, WORLD_PATCH_SCHEMA as unknown as JsonSchema);
}

export interface ComponentRecord {
  kind: ComponentKind;
  hash: string;
  content: unknown;
  created_at: number;
}

async function findIn(q: Queryable, kind: ComponentKind, hash: string): Promise<ComponentRecord | null> {
  const row = await q.get<{ content: string; created_at: number }>(
    `SELECT content, created_at FROM ${TABLE[kind]} WHERE hash = ?`,
    [hash],
  );
  return row ? { kind, hash, content: JSON.parse(row.content), created_at: Number(row.created_at) } : null;
}

/** A component of a given kind, or of any kind when `kind` is omitted. */
export async function getComponent(
  q: Queryable,
  hash: string,
  kind?: ComponentKind,
): Promise<ComponentRecord> {
  for (const k of kind ? [kind] : COMPONENT_KINDS) {
    const found = await findIn(q, k, hash);
    if (found) return found;
  }
  throw new NoemaError(
    kind ? UNKNOWN_CODE[kind] : 'UNKNOWN_COMPONENT',
    `no ${kind ?? 'component'} with hash ${hash}`,
    {
      details: { hash, ...(kind ? { kind } : {}) },
      status: 404,
    },
  );
}

export { getJsonSchema, getResponseSource };

export interface ComponentListItem {
  kind: ComponentKind;
  hash: string;
  label: string | null;
  created_at: number;
}

/** Newest first; `before` is the previous page's `next_cursor` (a created_at/hash pair). */
export async function listComponents(
  q: Queryable,
  input: { kind: ComponentKind; limit?: number; cursor?: string; uses?: string },
): Promise<{ items: ComponentListItem[]; next_cursor: string | null; truncated: boolean }> {
  const limit = Math.min(Math.max(input.limit ?? 50, 1), 200);
  // Schemas have no label; the built-in WorldPatch schema is listed by its stable name.
  const labelCol =
    input.kind === 'json_schema'
      ? `CASE WHEN hash = '${WORLD_PATCH_SCHEMA_HASH}' THEN '${WORLD_PATCH_SCHEMA_LABEL}' ELSE NULL END`
      : 'label';
  const conds: string[] = [];
  const params: Array<string | number> = [];
  if (input.uses !== undefined) {
    // Components of this kind that reference `uses` directly.
    conds.push('hash IN (SELECT from_hash FROM component_refs WHERE to_hash = ?)');
    params.push(input.uses);
  }
  if (input.cursor) {
    const m = /^(\d+):([0-9a-f]{64})$/.exec(input.cursor);
    if (!m) throw invalidInput('cursor is not a next_cursor from this listing', { cursor: input.cursor });
    conds.push('(created_at < ? OR (created_at = ? AND hash < ?))');
    params.push(Number(m[1]), Number(m[1]), m[2]!);
  }
  const where = conds.length ? `WHERE ${conds.join(' AND ')}` : '';
  const rows = await q.all<{ hash: string; label: string | null; created_at: number }>(
    `SELECT hash, ${labelCol} AS label, created_at FROM ${TABLE[input.kind]} ${where}
     ORDER BY created_at DESC, hash DESC LIMIT ?`,
    [...params, limit + 1],
  );
  const page = rows.slice(0, limit).map((r) => ({
    kind: input.kind,
    hash: r.hash,
    label: r.label ?? null,
    created_at: Number(r.created_at),
  }));
  const last = page.at(-1);
  const more = rows.length > limit;
  return {
    items: page,
    next_cursor: more && last ? `${last.created_at}:${last.hash}` : null,
    truncated: more,
  };
}

/** Components that reference `hash` directly (a profile → its workflow, a scenario → its parts). */
export async function listUsesOf(
  q: Queryable,
  hash: string,
): Promise<{ hash: string; used_by: Array<{ kind: ComponentKind; hash: string }> }> {
  const rows = await q.all<{ from_hash: string; from_kind: ComponentKind }>(
    'SELECT from_hash, from_kind FROM component_refs WHERE to_hash = ? ORDER BY from_kind, from_hash LIMIT 1000',
    [hash],
  );
  return { hash, used_by: rows.map((r) => ({ kind: r.from_kind, hash: r.from_hash })) };
}
