/**
 * Content-addressed documents sources read: JSON Schemas (`json_schemas`) and response source
 * definitions (`response_sources`). Putting the same document twice is a no-op returning the
 * same hash; a definition whose interface its implementation rejects is refused, changing nothing.
 */
import { canonicalJson, invalidInput, NoemaError, sha256Hex } from '../core/index.ts';
import type { JsonSchema } from '../core/schema-registry.ts';
import { schemas } from '../core/schema-registry.ts';
import type { Queryable } from '../store/store.ts';
import { responseSourceFor } from './registry.ts';
import type { ResponseSourceDocument, StoredResponseSource } from './source.ts';

const DOCUMENT_SCHEMA = {
  type: 'object',
  required: ['version', 'interface'],
  additionalProperties: false,
  properties: {
    version: { const: 1 },
    label: { type: 'string', pattern: '^[a-z0-9][a-z0-9_.-]{0,127}$' },
    description: { type: 'string', maxLength: 2000 },
    trace_context: { type: 'boolean' },
    interface: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
  },
} as const;

export interface StoredSchema {
  hash: string;
  schema: JsonSchema;
}

/** Stores a JSON Schema (it must compile) and returns its content address. */
export async function putJsonSchema(q: Queryable, schema: JsonSchema): Promise<StoredSchema> {
  schemas.compile(schema);
  const text = canonicalJson(schema);
  const hash = sha256Hex(text);
  await q.run(
    'INSERT INTO json_schemas (hash, content, created_at) VALUES (?, ?, ?) ON CONFLICT (hash) DO NOTHING',
    [hash, text, Date.now()],
  );
  return { hash, schema: JSON.parse(text) as JsonSchema };
}

export async function getJsonSchema(q: Queryable, hash: string): Promise<StoredSchema> {
  const row = await q.get<{ content: string }>('SELECT content FROM json_schemas WHERE hash = ?', [hash]);
  if (!row)
    throw new NoemaError('UNKNOWN_JSON_SCHEMA', `no JSON schema with hash ${hash}`, { details: { hash } });
  return { hash, schema: JSON.parse(row.content) as JsonSchema };
}

/** Checks a definition's shape and its implementation's interface; throws INVALID_INPUT. */
export function checkResponseSource(doc: unknown): ResponseSourceDocument {
  const r = schemas.validate<ResponseSourceDocument>(DOCUMENT_SCHEMA, doc);
  if (!r.ok) throw invalidInput('response source definition is invalid', { errors: r.errors });
  const impl = responseSourceFor(r.value.interface.name);
  const iface = schemas.validate(impl.interfaceSchema, r.value.interface);
  if (!iface.ok) {
    throw invalidInput(
      `"${impl.name}" interface is invalid`,
      { errors: iface.errors },
      'see docs/sources.md for each interface',
    );
  }
  return r.value;
}

/** Stores a response source definition and returns it with its content address. */
export async function putResponseSource(q: Queryable, doc: unknown): Promise<StoredResponseSource> {
  const content = checkResponseSource(doc);
  const impl = responseSourceFor(content.interface.name);
  await impl.checkReferences?.(q, content.interface);
  const text = canonicalJson(content);
  const hash = sha256Hex(text);
  await q.run(
    `INSERT INTO response_sources (hash, content, interface_name, label, created_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (hash) DO NOTHING`,
    [hash, text, content.interface.name, content.label ?? null, Date.now()],
  );
  return { hash, content: JSON.parse(text) as ResponseSourceDocument };
}

export async function getResponseSource(q: Queryable, hash: string): Promise<StoredResponseSource> {
  const row = await q.get<{ content: string }>('SELECT content FROM response_sources WHERE hash = ?', [hash]);
  if (!row) {
    throw new NoemaError('UNKNOWN_RESPONSE_SOURCE', `no response source with hash ${hash}`, {
      details: { hash },
    });
  }
  return { hash, content: JSON.parse(row.content) as ResponseSourceDocument };
}
