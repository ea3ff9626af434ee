/** `GET /` (every route, JSON or an HTML home with navigation) and `GET /openapi.json`. */
import { negotiate } from '../html/negotiate.ts';
import { renderIndexPage } from '../html/pages.ts';
import { openApiDocument } from '../openapi.ts';
import type { Route } from '../route.ts';

/** `all` resolves to every route of the server, those loaded on demand included (it loads them). */
export function homeRoutes(all: () => Promise<readonly Route[]>): Route[] {
  const names = (routes: readonly Route[]) => routes.map((r) => `${r.method} ${r.path}`);
  return [
    {
      method: 'GET',
      path: '/',
      summary: 'The server name and every route',
      async handle(ctx) {
        const { c, csrfToken } = ctx;
        const routes = await all();
        // A browser's home is the page at /home when the server has one (the browser's pages).
        const home = routes.find((r) => r.method === 'GET' && r.path === '/home');
        if (negotiate(c) === 'html' && home) return home.handle(ctx);
        if (negotiate(c) === 'html') {
          // Loaded here, not at the top: the catalog is loaded on demand with the routes (`all`).
          const { defaultCatalog, navOf } = await import('../catalog/index.ts');
          return { html: renderIndexPage(navOf(defaultCatalog), names(routes), csrfToken) };
        }
        return { json: { name: 'noema', routes: names(routes) } };
      },
    },
    {
      method: 'GET',
      path: '/openapi.json',
      summary: 'This API as OpenAPI 3.1, generated from the route table and the catalog',
      async handle() {
        return { json: openApiDocument(await all()) };
      },
    },
  ];
}
