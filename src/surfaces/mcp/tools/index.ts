/** The `memory` catalog's tools, assembled: log and branches, graph, thinking cards, tasks. */
import type { McpToolDef } from '../tool.ts';
import { graphTools } from './graph.ts';
import { logTools } from './log.ts';
import { tasksTools } from './tasks.ts';
import { thinkTools } from './think.ts';

export function memoryTools(): McpToolDef[] {
  return [...logTools, ...graphTools, ...thinkTools, ...tasksTools];
}
