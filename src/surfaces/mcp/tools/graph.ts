/** Graph tools (owned by the graph side; placeholder until it lands). */
import type { McpToolDef } from '../tool.ts';

export const graphTools: McpToolDef[] = [];
