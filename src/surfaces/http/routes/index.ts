/** Every HTTP route module, assembled. Subsystems add one line here. */
import type { AppServices, Route } from '../router.ts';
import { healthRoutes } from './health.ts';
import { mcpRoutes } from './mcp.ts';
import { sourceInvocationRoutes } from './source-invocations.ts';

export function allRoutes(app: AppServices): Route[] {
  return [...healthRoutes(app), ...sourceInvocationRoutes(app), ...mcpRoutes(app)];
}
