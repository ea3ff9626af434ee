/**
 * The browser's pages: importing this module registers the detail views (pictures, forensics, live
 * regions) and `pageRoutes` binds the home page to the server's store.
 */
import { setHomePage } from '../html/views.ts';
import type { AppServices, Route } from '../route.ts';
import './agent.ts';
import './attempt.ts';
import './flowchart.ts';
import './graphs.ts';
import './memory.ts';
import { homeBody } from './home.ts';
import './run.ts';
import './session.ts';
import './trace.ts';
import './world.ts';

export { worldPage } from './world.ts';

export function pageRoutes(app: AppServices): Route[] {
  setHomePage(() => homeBody(app.store));
  return [];
}
