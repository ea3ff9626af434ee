/**
 * Every HTTP route module, assembled. Subsystems add one line to `onDemandRoutes` (resource kinds go
 * in kinds/index.ts); `always.ts` holds the few a server serves before it loads these.
 */
import '../kinds/index.ts';
import { catalogRoutes, defaultCatalog } from '../catalog/index.ts';
import { pageRoutes } from '../pages/index.ts';
import type { Route } from '../route.ts';
import { agentRoutes } from './agents.ts';
import { alwaysRoutes } from './always.ts';
import { type FlowAppServices, flowRoutes } from './flow.ts';
import { mcpRoutes } from './mcp.ts';
import { runEventRoutes } from './run-events.ts';
import { workerRoutes } from './workers.ts';
import { worldRoutes } from './worlds.ts';

/** Every route. */
export function allRoutes(app: FlowAppServices): Route[] {
  return [...alwaysRoutes(app), ...onDemandRoutes(app)];
}

/** Every route but `alwaysRoutes`: what a server loads on the first request those do not serve. */
export function onDemandRoutes(app: FlowAppServices): Route[] {
  return [
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
