/** `GET /` (every route, JSON or an HTML home with navigation) and `GET /openapi.json`. */
import { defaultCatalog, navOf } from '../catalog/index.ts';
import { negotiate } from '../html/negotiate.ts';
import { h, layout } from '../html/render.ts';
import { homePageBody } from '../html/views.ts';
import { openApiDocument } from '../openapi.ts';
import type { Route } from '../route.ts';

export function homeRoutes(all: () => readonly Route[]): Route[] {
  const names = () => all().map((r) => `${r.method} ${r.path}`);
  return [
    {
      method: 'GET',
      path: '/',
      summary: 'The server name and every route',
      async handle({ c, csrfToken }) {
        if (negotiate(c) === 'html') {
          const body = h`${(await homePageBody()) ?? ''}<details><summary>Every route</summary><ul>${names().map(
            (r) => h`<li><code>${r}</code></li>`,
          )}</ul></details>`;
          return { html: layout('Home', navOf(defaultCatalog), body, csrfToken, { path: '/' }) };
        }
        return { json: { name: 'noema', routes: names() } };
      },
    },
    {
      method: 'GET',
      path: '/openapi.json',
      summary: 'This API as OpenAPI 3.1, generated from the route table and the catalog',
      async handle() {
        return { json: openApiDocument(all()) };
      },
    },
  ];
}
