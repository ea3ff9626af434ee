/** Every HTTP route module, assembled. Subsystems add one line here (resource kinds go in kinds/index.ts). */
import '../kinds/index.ts';
import { catalogRoutes, defaultCatalog } from '../catalog/index.ts';
import { pageRoutes } from '../pages/index.ts';
import type { AppServices, Route } from '../route.ts';
import { agentRoutes } from './agents.ts';
import { flowRoutes } from './flow.ts';
import { healthRoutes } from './health.ts';
import { mcpRoutes } from './mcp.ts';
import { metricsRoutes } from './metrics.ts';
import { runEventRoutes } from './run-events.ts';
import { workerRoutes } from './workers.ts';
import { worldRoutes } from './worlds.ts';

export function allRoutes(app: AppServices): Route[] {
  return [
    ...healthRoutes(app),
    ...metricsRoutes(app),
    ...catalogRoutes(defaultCatalog, app),
    ...runEventRoutes(app),
    ...flowRoutes(app),
    ...mcpRoutes(app),
    ...worldRoutes(app),
    ...workerRoutes(app),
    ...agentRoutes(app),
    ...pageRoutes(app),
  ];
}
