/**
 * The browser's pages: importing this module registers the detail views (pictures, forensics, live
 * regions); `pageRoutes` adds `/home` (counts and recent records, HTML or JSON), which is also what
 * a browser sees at `/`.
 */
import { defaultCatalog, navOf } from '../catalog/index.ts';
import { negotiate } from '../html/negotiate.ts';
import { h, layout } from '../html/render.ts';
import type { AppServices, Route } from '../route.ts';
import './agent.ts';
import './attempt.ts';
import './contract.ts';
import './flowchart.ts';
import './graphs.ts';
import './memory.ts';
import { compareRoutes } from './compare.ts';
import { flowchartActionRoutes } from './flowchart-actions.ts';
import { homePage } from './home.ts';
import { memoryBranchRoutes } from './memory-branches.ts';
import './run.ts';
import { searchRoutes } from './search.ts';
import './session.ts';
import { sessionActionRoutes } from './session-actions.ts';
import './trace.ts';
import './world.ts';
import { worldActionRoutes } from './world-actions.ts';

export { worldPage } from './world.ts';

export const HOME_PATH = '/home';

export function pageRoutes(app: AppServices): Route[] {
  return [
    ...worldActionRoutes(app),
    ...compareRoutes(app),
    ...memoryBranchRoutes(app),
    ...sessionActionRoutes(app),
    ...flowchartActionRoutes(app),
    ...searchRoutes(app),
    {
      method: 'GET',
      path: HOME_PATH,
      summary: 'Home: counts and recent worlds, agent sessions, flowcharts, runs and failures',
      async handle(ctx) {
        const home = await homePage(app.store);
        if (negotiate(ctx.c) === 'json') return { json: home.json };
        const body = h`${home.body}<p><a href="/?format=json">every route</a> · <a href="${HOME_PATH}?format=json">as JSON</a></p>`;
        return { html: layout('Home', navOf(defaultCatalog), body, ctx.csrfToken, { path: '/' }) };
      },
    },
  ];
}
