/** Every HTTP route module, assembled. Subsystems add one line here. */
import type { AppServices, Route } from '../router.ts';
import { healthRoutes } from './health.ts';
import { mcpRoutes } from './mcp.ts';
import { sourceInvocationRoutes } from './source-invocations.ts';

export function allRoutes(app: AppServices): Route[] {
  const routes = [...healthRoutes(app), ...sourceInvocationRoutes(app), ...mcpRoutes(app)];
  const index: Route = {
    method: 'GET',
    path: '/',
    async handle() {
      return { json: { name: 'noema', routes: routes.map((r) => `${r.method} ${r.path}`) } };
    },
  };
  return [index, ...routes];
}
