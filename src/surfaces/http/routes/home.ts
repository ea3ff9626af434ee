/** `GET /` (every route, JSON or an HTML home with navigation) and `GET /openapi.json`. */
import { defaultCatalog, navOf } from '../catalog/index.ts';
import { negotiate } from '../html/negotiate.ts';
import { renderIndexPage } from '../html/pages.ts';
import { openApiDocument } from '../openapi.ts';
import type { Route } from '../route.ts';

export function homeRoutes(all: () => readonly Route[]): Route[] {
  const names = () => all().map((r) => `${r.method} ${r.path}`);
  return [
    {
      method: 'GET',
      path: '/',
      summary: 'The server name and every route',
      async handle(ctx) {
        const { c, csrfToken } = ctx;
        // A browser's home is the page at /home when the server has one (the browser's pages).
        const home = all().find((r) => r.method === 'GET' && r.path === '/home');
        if (negotiate(c) === 'html' && home) return home.handle(ctx);
        if (negotiate(c) === 'html')
          return { html: renderIndexPage(navOf(defaultCatalog), names(), csrfToken) };
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
