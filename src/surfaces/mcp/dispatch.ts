/**
 * Tool dispatch independent of transport: validate arguments against the tool's JSON Schema,
 * run the handler, and shape the MCP result (structuredContent + the same JSON as text, or
 * `isError: true` with `{ error: { code, message, details, retryable, recovery? } }`).
 */
import { type ErrorCode, isNoemaError, NoemaError } from '../../core/errors.ts';
import { schemas, type Validator } from '../../core/schema-registry.ts';
import { inspectArguments, MAX_ARGUMENT_DEPTH } from './hygiene.ts';
import type { RawJsonSplice } from './raw-json.ts';
import { type McpToolContext, type McpToolDef, WithJsonText } from './tool.ts';

export interface ToolCallResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  structuredContent: Record<string, unknown>;
  isError?: boolean;
}

/** The `error` object of a failed tool call: the NoemaError as data, `recovery` being its hint. */
export interface ToolError {
  code: ErrorCode;
  message: string;
  /** Serializable facts about the failure (paths, ids, limits), as the REST envelope carries them. */
  details: Record<string, unknown>;
  /** True when calling again unchanged may succeed (the store was busy, a lease was lost). */
  retryable: boolean;
  recovery?: string;
}

export function errorResult(err: unknown): ToolCallResult {
  if (!isNoemaError(err))
    process.emitWarning(`noema mcp: tool failed: ${(err as Error)?.stack ?? String(err)}`);
  const error: ToolError = isNoemaError(err)
    ? { code: err.code, message: err.message, details: err.details, retryable: err.retryable }
    : { code: 'INTERNAL', message: 'internal error while running the tool', details: {}, retryable: false };
  if (isNoemaError(err) && err.hint !== undefined) error.recovery = err.hint;
  const body = { error };
  return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body, isError: true };
}

/**
 * A handler's output as a result: its JSON as text content and as structured content. An output
 * with its JSON made (`WithJsonText`) carries those bytes in both where the transport splices raw
 * JSON (`rawJson`), its objects and its text never made.
 */
export function successResult(
  out: Record<string, unknown> | WithJsonText,
  rawJson?: RawJsonSplice,
): ToolCallResult {
  if (out instanceof WithJsonText)
    return rawJson
      ? {
          content: [{ type: 'text', text: rawJson.standInText(out.json, out.escaped) }],
          structuredContent: rawJson.standIn(out.json),
        }
      : { content: [{ type: 'text', text: out.text }], structuredContent: out.value };
  return { content: [{ type: 'text', text: JSON.stringify(out) }], structuredContent: out };
}

function describeIssues(
  issues: Array<{ path: string; message: string; keyword: string; params: Record<string, unknown> }>,
): string {
  return issues
    .slice(0, 5)
    .map((i) => {
      if (i.keyword === 'additionalProperties')
        return `unknown field "${String(i.params.additionalProperty)}"`;
      if (i.keyword === 'required') return `missing required field "${String(i.params.missingProperty)}"`;
      return i.message;
    })
    .join('; ');
}

/** Throws INVALID_INPUT for arguments nested too deep or holding control characters at any depth. */
function assertCleanArguments(args: unknown): void {
  const problem = inspectArguments(args);
  if (problem?.kind === 'too_deep') {
    throw new NoemaError('INVALID_INPUT', `${problem.path} nests deeper than ${MAX_ARGUMENT_DEPTH} levels`, {
      details: { path: problem.path, max_depth: MAX_ARGUMENT_DEPTH },
      hint: `flatten the arguments: no tool takes JSON nested deeper than ${MAX_ARGUMENT_DEPTH} levels`,
      status: 400,
    });
  }
  if (problem?.kind === 'unsafe_text') {
    throw new NoemaError('INVALID_INPUT', `${problem.path} contains control characters or invalid Unicode`, {
      details: { path: problem.path },
      hint: 'remove control characters (tab and newline are fine) and lone surrogates',
      status: 400,
    });
  }
}

export class ToolDispatcher {
  /** Each tool with its input schema's validator, compiled once (a call does not hash the schema again). */
  readonly #tools = new Map<string, { def: McpToolDef; input: Validator<Record<string, unknown>> }>();
  #inflight = 0;
  #idleWaiters: Array<() => void> = [];

  constructor(tools: readonly McpToolDef[]) {
    for (const t of tools) {
      if (this.#tools.has(t.name)) throw new NoemaError('INTERNAL', `duplicate MCP tool name ${t.name}`);
      this.#tools.set(t.name, { def: t, input: schemas.compile(t.inputSchema) });
    }
  }

  list(): McpToolDef[] {
    return [...this.#tools.values()].map((t) => t.def);
  }

  /** Resolves when no call is running (so a stopping process can close its store safely). */
  idle(): Promise<void> {
    if (this.#inflight === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  async call(name: string, args: unknown, ctx: McpToolContext): Promise<ToolCallResult> {
    this.#inflight += 1;
    try {
      return await this.#call(name, args, ctx);
    } finally {
      this.#inflight -= 1;
      if (this.#inflight === 0) for (const w of this.#idleWaiters.splice(0)) w();
    }
  }

  async #call(name: string, args: unknown, ctx: McpToolContext): Promise<ToolCallResult> {
    try {
      const tool = this.#tools.get(name);
      if (!tool) {
        throw new NoemaError('UNKNOWN_TOOL', `no tool named "${name}"`, {
          hint: 'list the tools with tools/list',
        });
      }
      // Before the schema: Ajv recurses, so nesting must be bounded before it walks the value.
      assertCleanArguments(args ?? {});
      const result = tool.input.validate(args ?? {});
      if (!result.ok) {
        const missingWorkspace = result.errors.some(
          (e) => e.keyword === 'required' && e.params.missingProperty === 'workspace',
        );
        throw new NoemaError(
          'INVALID_INPUT',
          `invalid arguments for ${name}: ${describeIssues(result.errors)}`,
          {
            details: { issues: result.errors.slice(0, 20) },
            hint: missingWorkspace
              ? 'pass "workspace" (a stable id of your project); initialize it once with branchmind_init'
              : `check the arguments against the inputSchema of ${name} in tools/list`,
            status: 400,
          },
        );
      }
      return successResult(await tool.def.handler(result.value, ctx), ctx.rawJson);
    } catch (err) {
      return errorResult(err);
    }
  }
}
