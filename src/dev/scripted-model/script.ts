/**
 * The scripted model's script: rules matched against each Chat Completions request, first
 * match wins. The format is documented in docs/sources.md ("Scripted model").
 */
import { readFileSync } from 'node:fs';
import { NoemaError } from '../../core/errors.ts';
import { schemas } from '../../core/schema-registry.ts';

export interface ScriptMatch {
  /** The request's `model`. */
  model?: string;
  /** The `x-noema-turn` header (or body `metadata.turn`). */
  turn?: number;
  /** The `x-noema-subject` header (or body `metadata.subject`). */
  subject?: string;
  /** 1-based count of requests this server has received. */
  call?: number;
  /** Substring of the last message's content. */
  last_message_contains?: string;
  /** Substring of any message's content. */
  any_message_contains?: string;
  /** Regular expression tested against every message's content. */
  message_matches?: string;
  /** Whether the request carries `response_format`. */
  has_response_format?: boolean;
}

export interface ScriptReply {
  /** Streams `JSON.stringify(json)` as the assistant content. */
  json?: unknown;
  /** Streams this text as the assistant content (use for non-JSON replies). */
  text?: string;
  /**
   * Streams these OpenAI-style function calls (`delta.tool_calls`, finish reason `tool_calls`)
   * after any content: for clients that use the API's native tool calling (the Mastra anchor).
   */
  tool_calls?: Array<{ name: string; arguments: unknown }>;
  /** Answers this HTTP status, JSON body and headers (e.g. `retry-after`) instead of a stream. */
  error?: { status: number; body?: unknown; headers?: Record<string, string> };
  /** Streams this refusal (`delta.refusal`, as OpenAI's structured outputs do) instead of content. */
  refusal?: string;
  /** Answers HTTP 400 as providers do when they do not support `response_format`. */
  reject_response_format?: boolean;
  /** Sends headers (and `hang_after_chunks` chunks), then never finishes. */
  hang?: boolean;
  hang_after_chunks?: number;
  /**
   * Streams the whole reply with its finish reason, then never ends the stream (no usage event, no
   * `[DONE]`): a connection stalled after a complete answer.
   */
  hang_after_finish?: boolean;
  /** Characters per streamed chunk (default 16). */
  chunk_chars?: number;
  /** Pause between chunks, ms (default 0). */
  chunk_delay_ms?: number;
  /** Pause before answering, ms (default 0). */
  delay_ms?: number;
  finish_reason?: string;
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

export interface ScriptRule {
  match?: ScriptMatch;
  /** Use this rule at most this many times. */
  times?: number;
  reply: ScriptReply;
}

export interface ModelScript {
  /** Rejects every request carrying `response_format` (a model without structured outputs). */
  reject_response_format?: boolean;
  rules: ScriptRule[];
  /** Used when no rule matches; without it an unmatched request gets HTTP 500. */
  default?: ScriptReply;
}

const REPLY = {
  type: 'object',
  additionalProperties: false,
  properties: {
    json: {},
    text: { type: 'string' },
    tool_calls: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['name', 'arguments'],
        additionalProperties: false,
        properties: { name: { type: 'string', minLength: 1 }, arguments: {} },
      },
    },
    error: {
      type: 'object',
      required: ['status'],
      additionalProperties: false,
      properties: {
        status: { type: 'integer', minimum: 400, maximum: 599 },
        body: {},
        headers: { type: 'object', additionalProperties: { type: 'string' } },
      },
    },
    reject_response_format: { type: 'boolean' },
    refusal: { type: 'string' },
    hang: { type: 'boolean' },
    hang_after_chunks: { type: 'integer', minimum: 0 },
    hang_after_finish: { type: 'boolean' },
    chunk_chars: { type: 'integer', minimum: 1 },
    chunk_delay_ms: { type: 'integer', minimum: 0 },
    delay_ms: { type: 'integer', minimum: 0 },
    finish_reason: { type: 'string' },
    usage: { type: 'object' },
  },
  minProperties: 1,
};

const SCRIPT_SCHEMA = {
  type: 'object',
  required: ['rules'],
  additionalProperties: false,
  properties: {
    $schema: { type: 'string' },
    description: { type: 'string' },
    reject_response_format: { type: 'boolean' },
    rules: {
      type: 'array',
      items: {
        type: 'object',
        required: ['reply'],
        additionalProperties: false,
        properties: {
          description: { type: 'string' },
          match: {
            type: 'object',
            additionalProperties: false,
            properties: {
              model: { type: 'string' },
              turn: { type: 'integer' },
              subject: { type: 'string' },
              call: { type: 'integer', minimum: 1 },
              last_message_contains: { type: 'string' },
              any_message_contains: { type: 'string' },
              message_matches: { type: 'string' },
              has_response_format: { type: 'boolean' },
            },
          },
          times: { type: 'integer', minimum: 1 },
          reply: REPLY,
        },
      },
    },
    default: REPLY,
  },
};

export function parseScript(value: unknown): ModelScript {
  const script = schemas.assertValid<ModelScript>(SCRIPT_SCHEMA, value, {
    code: 'INVALID_INPUT',
    what: 'model script',
  });
  // A regex that does not compile would otherwise fail every request that reaches its rule.
  script.rules.forEach((rule, i) => {
    const source = rule.match?.message_matches;
    if (source === undefined) return;
    try {
      new RegExp(source);
    } catch (err) {
      throw new NoemaError(
        'INVALID_INPUT',
        `model script: /rules/${i}/match/message_matches is not a valid regular expression (${(err as Error).message})`,
        { details: { path: `/rules/${i}/match/message_matches` } },
      );
    }
  });
  return script;
}

export function loadScript(path: string): ModelScript {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new NoemaError('INVALID_INPUT', `cannot read model script ${path}: ${(err as Error).message}`);
  }
  try {
    return parseScript(JSON.parse(text));
  } catch (err) {
    if (err instanceof SyntaxError)
      throw new NoemaError('INVALID_INPUT', `model script ${path} is not JSON: ${err.message}`);
    throw err;
  }
}

export interface RequestFacts {
  model: string | undefined;
  turn: number | undefined;
  subject: string | undefined;
  call: number;
  contents: string[];
  hasResponseFormat: boolean;
}

export function matches(m: ScriptMatch | undefined, f: RequestFacts): boolean {
  if (!m) return true;
  if (m.model !== undefined && m.model !== f.model) return false;
  if (m.turn !== undefined && m.turn !== f.turn) return false;
  if (m.subject !== undefined && m.subject !== f.subject) return false;
  if (m.call !== undefined && m.call !== f.call) return false;
  if (m.has_response_format !== undefined && m.has_response_format !== f.hasResponseFormat) return false;
  if (m.last_message_contains !== undefined && !(f.contents.at(-1) ?? '').includes(m.last_message_contains))
    return false;
  if (m.any_message_contains !== undefined && !f.contents.some((c) => c.includes(m.any_message_contains!)))
    return false;
  if (m.message_matches !== undefined) {
    const re = new RegExp(m.message_matches);
    if (!f.contents.some((c) => re.test(c))) return false;
  }
  return true;
}
