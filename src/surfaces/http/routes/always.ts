/**
 * The routes a server serves from its start, loaded with it (every other route module is loaded on
 * the first request these do not serve): they stay light, with no runtime and no page behind them.
 */
import type { AppServices, Route } from '../route.ts';
import { healthRoutes } from './health.ts';
import { metricsRoutes } from './metrics.ts';

export function alwaysRoutes(app: AppServices): Route[] {
  return [...healthRoutes(app), ...metricsRoutes(app)];
}
