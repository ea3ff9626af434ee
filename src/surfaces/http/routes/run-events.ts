/** `GET /runs/:run_id/events`: a run's engine events as Server-Sent Events. */
import type { AppServices, Route } from '../route.ts';

export function runEventRoutes(_app: AppServices): Route[] {
  return [];
}
