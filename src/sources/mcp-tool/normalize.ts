/**
 * Turns an MCP `CallToolResult` into JSON context: `structuredContent` when present, else the
 * text content parsed as JSON, else `{ text }`; other content kinds are kept as `{ content }`.
 */

type Content = { type: string; text?: string; [k: string]: unknown };
export interface ToolResultLike {
  content?: Content[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export function toolText(result: ToolResultLike): string {
  return (result.content ?? [])
    .filter((c) => c.type === 'text' && typeof c.text === 'string')
    .map((c) => c.text!)
    .join('\n');
}

export function normalizeToolResult(result: ToolResultLike): unknown {
  if (result.structuredContent !== undefined) return result.structuredContent;
  const content = result.content ?? [];
  const texts = content.filter((c) => c.type === 'text' && typeof c.text === 'string');
  if (texts.length === content.length && texts.length > 0) {
    const text = texts.map((c) => c.text!).join('\n');
    try {
      return JSON.parse(text);
    } catch {
      return { text };
    }
  }
  return { content };
}
