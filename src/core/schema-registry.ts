// JSON Schema (draft 2020-12) validation on Ajv: schemas compiled once, cached by content hash,
// results returned as unions with readable, JSON-pointer-addressed issues.

import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { createAjv } from './ajv.ts';
import { canonicalJson } from './canonical-json.ts';
import { ErrorCode, NoemaError } from './errors.ts';
import { sha256Hex } from './hash.ts';
import { LruMap } from './lru.ts';

/** One reason a value (or a schema) failed validation. */
export interface SchemaIssue {
  /** JSON pointer into the validated value, like `/a/0/b`; `''` for the root. */
  path: string;
  /** Readable sentence including the path, like `/age must be >= 0`. */
  message: string;
  /** The JSON Schema keyword that failed (`type`, `required`, ...). */
  keyword: string;
  params: Record<string, unknown>;
}

export type ValidationResult<T> = { ok: true; value: T } | { ok: false; errors: SchemaIssue[] };

/** A compiled schema. Obtain through `SchemaRegistry.compile`; reusable and cheap to call. */
export interface Validator<T = unknown> {
  /** sha256 of the schema's canonical JSON. */
  readonly hash: string;
  readonly schema: Readonly<Record<string, unknown>> | boolean;
  validate(value: unknown): ValidationResult<T>;
}

export type JsonSchema = Record<string, unknown> | boolean;

/** Options for `assertValid`. */
export interface AssertValidOptions {
  /** Error code to throw; defaults to SCHEMA_INVALID. */
  code?: ErrorCode;
  /** What is being validated, for the message (e.g. "tool arguments"). */
  what?: string;
}

/** How many compiled schemas a registry keeps by default. */
export const DEFAULT_MAX_SCHEMAS = 1000;

/**
 * Owns one Ajv instance. Each distinct schema (by content hash) is handed to Ajv exactly once,
 * so compiling the same schema repeatedly neither grows Ajv's internal caches nor trips Ajv's
 * duplicate-`$id` check. Schemas arrive from users (tool arguments, forms, stored sources), so
 * at most `maxSchemas` are kept: the least recently used is removed from Ajv too (its `$id`
 * becomes free again) and simply compiled anew if it comes back.
 */
export class SchemaRegistry {
  #ajvInstance: Ajv2020 | undefined;
  readonly #cache: LruMap<string, Validator>;

  constructor(options: { maxSchemas?: number } = {}) {
    this.#cache = new LruMap(options.maxSchemas ?? DEFAULT_MAX_SCHEMAS, (_hash, evicted) => {
      // The very object Ajv compiled is its cache key; `true`/`false` are two keys at most.
      if (typeof evicted.schema === 'object') this.#ajv.removeSchema(evicted.schema);
    });
  }

  /** Created on the first compile: a registry that never compiles never loads Ajv. */
  get #ajv(): Ajv2020 {
    this.#ajvInstance ??= createAjv(
      {
        allErrors: true,
        strict: false,
        // 'log' (not false) keeps Ajv throwing on unknown formats while only logging unknown keywords.
        strictSchema: 'log',
        strictNumbers: true,
        logger: false,
      },
      { formats: true },
    );
    return this.#ajvInstance;
  }

  /** How many compiled schemas are cached now (at most `maxSchemas`). */
  get size(): number {
    return this.#cache.size;
  }

  /** Content hash of a schema (sha256 of its canonical JSON). */
  hashOf(schema: JsonSchema): string {
    return sha256Hex(canonicalJson(schema));
  }

  /** Compiles (or returns the cached validator for) `schema`. Throws NoemaError INVALID_SCHEMA. */
  compile<T = unknown>(schema: JsonSchema): Validator<T> {
    const canonical = canonicalSchema(schema);
    const hash = sha256Hex(canonical);
    const cached = this.#cache.get(hash);
    if (cached) return cached as Validator<T>;

    // A private parsed copy: later mutation of the caller's object cannot affect the compiled validator.
    const own = JSON.parse(canonical) as JsonSchema;
    const id = topLevelId(own);
    // Checked before Ajv sees the schema: Ajv's own duplicate check fires after it has half-registered it.
    if (id !== undefined && (this.#ajv.refs[id] !== undefined || this.#ajv.schemas[id] !== undefined)) {
      throw invalidSchema(`a different schema with $id "${id}" is already registered`, [
        {
          path: '/$id',
          message: `/$id "${id}" is already used by a different schema`,
          keyword: '$id',
          params: { id },
        },
      ]);
    }
    const metaIssues = this.#metaIssues(own);
    if (metaIssues.length > 0) {
      throw invalidSchema('schema does not conform to JSON Schema 2020-12', metaIssues);
    }

    let fn: ValidateFunction;
    try {
      fn = this.#ajv.compile(own);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      // Ajv registers the schema (and its $id) before compiling it; undo that so a corrected schema can be added.
      this.#ajv.removeSchema(own);
      throw invalidSchema(`schema cannot be compiled: ${message}`, [
        { path: '', message, keyword: 'compile', params: {} },
      ]);
    }
    const validator: Validator<T> = {
      hash,
      schema: own,
      validate(value: unknown): ValidationResult<T> {
        if (fn(value)) return { ok: true, value: value as T };
        return { ok: false, errors: toIssues(fn.errors) };
      },
    };
    this.#cache.set(hash, validator);
    return validator;
  }

  /** Checks that `schema` is a valid, compilable 2020-12 schema (compiling and caching it if so). */
  checkSchema(schema: JsonSchema): ValidationResult<JsonSchema> {
    try {
      this.compile(schema);
      return { ok: true, value: schema };
    } catch (e) {
      if (e instanceof NoemaError && e.code === ErrorCode.INVALID_SCHEMA) {
        return { ok: false, errors: e.details.errors as SchemaIssue[] };
      }
      throw e;
    }
  }

  /** Validates `value` against `schema` (compiled through the cache) and returns the result union. */
  validate<T = unknown>(schema: JsonSchema, value: unknown): ValidationResult<T> {
    return this.compile<T>(schema).validate(value);
  }

  /**
   * Returns `value` typed as T, or throws NoemaError (`options.code`, default SCHEMA_INVALID)
   * whose `details.errors` are the SchemaIssues.
   */
  assertValid<T = unknown>(schema: JsonSchema, value: unknown, options: AssertValidOptions = {}): T {
    const result = this.validate<T>(schema, value);
    if (result.ok) return result.value;
    const what = options.what ?? 'value';
    const first = result.errors[0]?.message ?? 'invalid';
    const more = result.errors.length > 1 ? ` (and ${result.errors.length - 1} more)` : '';
    throw new NoemaError(
      options.code ?? ErrorCode.SCHEMA_INVALID,
      `${what} does not match schema: ${first}${more}`,
      {
        details: { errors: result.errors, schema_hash: this.compile(schema).hash },
        hint: 'Fix the listed paths so the value matches the schema.',
        status: 400,
      },
    );
  }

  #metaIssues(schema: JsonSchema): SchemaIssue[] {
    let valid: boolean | Promise<unknown>;
    try {
      valid = this.#ajv.validateSchema(schema);
    } catch (e) {
      // Ajv throws rather than reporting when `$schema` names a meta-schema it does not know.
      const message = e instanceof Error ? e.message : String(e);
      return [{ path: '/$schema', message: `/$schema ${message}`, keyword: '$schema', params: {} }];
    }
    if (valid === true) return [];
    return toIssues(this.#ajv.errors);
  }
}

/** Ajv's key for a schema's top-level $id (it strips a trailing `#` or `#/`). */
function topLevelId(schema: JsonSchema): string | undefined {
  if (typeof schema !== 'object') return undefined;
  const id = schema.$id;
  return typeof id === 'string' ? id.replace(/#\/?$/, '') : undefined;
}

function canonicalSchema(schema: JsonSchema): string {
  if (
    typeof schema !== 'boolean' &&
    (typeof schema !== 'object' || schema === null || Array.isArray(schema))
  ) {
    throw invalidSchema('schema must be an object or a boolean', [
      { path: '', message: 'schema must be an object or a boolean', keyword: 'type', params: {} },
    ]);
  }
  try {
    return canonicalJson(schema);
  } catch (e) {
    if (e instanceof NoemaError) {
      throw invalidSchema(`schema is not plain JSON: ${e.message}`, [
        { path: '', message: e.message, keyword: 'json', params: e.details },
      ]);
    }
    throw e;
  }
}

function invalidSchema(message: string, errors: SchemaIssue[]): NoemaError {
  return new NoemaError(ErrorCode.INVALID_SCHEMA, message, {
    details: { errors },
    hint: 'Fix the schema; see details.errors. Distinct schemas must not share an $id.',
    status: 400,
  });
}

function toIssues(errors: ErrorObject[] | null | undefined): SchemaIssue[] {
  if (!errors) return [];
  return errors.map((e) => {
    const path = e.instancePath;
    let message = `${path === '' ? '(root)' : path} ${e.message ?? `fails ${e.keyword}`}`;
    const params = e.params as Record<string, unknown>;
    if (e.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
      message += ` (${JSON.stringify(params.additionalProperty)})`;
    } else if (e.keyword === 'enum' && Array.isArray(params.allowedValues)) {
      message += `: ${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
    }
    return { path, message, keyword: e.keyword, params };
  });
}

/** The process-wide shared registry. */
export const schemas: SchemaRegistry = new SchemaRegistry();
