/**
 * Tool dispatch independent of transport: validate arguments against the tool's JSON Schema,
 * run the handler, and shape the MCP result (structuredContent + the same JSON as text, or
 * `isError: true` with `{ error: { code, message, recovery? } }`).
 */
import { isNoemaError, NoemaError } from '../../core/errors.ts';
import { schemas } from '../../core/schema-registry.ts';
import { findUnsafeText } from './hygiene.ts';
import type { McpToolContext, McpToolDef } from './tool.ts';

export interface ToolCallResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  structuredContent: Record<string, unknown>;
  isError?: boolean;
}

export interface ToolError {
  code: string;
  message: string;
  recovery?: string;
}

export function errorResult(err: unknown): ToolCallResult {
  const error: ToolError = isNoemaError(err)
    ? { code: err.code, message: err.message }
    : { code: 'INTERNAL', message: 'internal error while running the tool' };
  if (isNoemaError(err) && err.hint !== undefined) error.recovery = err.hint;
  if (!isNoemaError(err))
    process.emitWarning(`noema mcp: tool failed: ${(err as Error)?.stack ?? String(err)}`);
  const body = { error };
  return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body, isError: true };
}

export function successResult(out: Record<string, unknown>): ToolCallResult {
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

export class ToolDispatcher {
  readonly #tools = new Map<string, McpToolDef>();
  #inflight = 0;
  #idleWaiters: Array<() => void> = [];

  constructor(tools: readonly McpToolDef[]) {
    for (const t of tools) {
      if (this.#tools.has(t.name)) throw new NoemaError('INTERNAL', `duplicate MCP tool name ${t.name}`);
      schemas.compile(t.inputSchema);
      this.#tools.set(t.name, t);
    }
  }

  list(): McpToolDef[] {
    return [...this.#tools.values()];
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
      const result = schemas.validate<Record<string, unknown>>(tool.inputSchema, args ?? {});
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
      const unsafe = findUnsafeText(result.value);
      if (unsafe !== undefined) {
        throw new NoemaError('INVALID_INPUT', `${unsafe} contains control characters or invalid Unicode`, {
          details: { path: unsafe },
          hint: 'remove control characters (tab and newline are fine) and lone surrogates',
          status: 400,
        });
      }
      return successResult(await tool.handler(result.value, ctx));
    } catch (err) {
      return errorResult(err);
    }
  }
}
