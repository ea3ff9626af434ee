/** Thinking-card tools (owned by the thinking side; placeholder until it lands). */
import type { McpToolDef } from '../tool.ts';

export const thinkTools: McpToolDef[] = [];
