/** World routes beyond the catalog: a world at a past turn, and running a turn (POST). */
import { getWorldJson, sharedWorldRuntime } from '../../../runtimes/world/index.ts';
import { defaultCatalog, navOf } from '../catalog/index.ts';
import { negotiate } from '../html/negotiate.ts';
import { layout } from '../html/render.ts';
import { worldPage } from '../pages/index.ts';
import type { AppServices, Route } from '../route.ts';

export function worldRoutes(app: AppServices): Route[] {
  return [
    {
      method: 'GET',
      path: '/worlds/:world_slug/turns/:turn',
      summary: 'A world as of a committed turn',
      async handle(ctx) {
        const turn = Number(ctx.params.turn);
        if (negotiate(ctx.c) === 'html') {
          const page = await worldPage(
            app.store,
            ctx.params.world_slug ?? '',
            Number.isInteger(turn) ? turn : -1,
            undefined,
            ctx.csrfToken,
          );
          const options = { path: ctx.url.pathname, ...(page.crumbs ? { crumbs: page.crumbs } : {}) };
          return {
            html: layout(page.title ?? 'World', navOf(defaultCatalog), page.body, ctx.csrfToken, options),
          };
        }
        // As text: a world's answer is spliced from its snapshot's text, never built as objects.
        const slug = ctx.params.world_slug ?? '';
        const links = { self: ctx.url.pathname, world: `/worlds/${encodeURIComponent(slug)}` };
        return {
          jsonPieces: await getWorldJson(
            app.store,
            { world_slug: slug, turn: Number.isInteger(turn) ? turn : -1 },
            { links },
          ),
        };
      },
    },
    {
      method: 'POST',
      path: '/worlds/:world_slug/turns',
      summary: 'Run the next turn of a world (409 ATTEMPT_IN_PROGRESS while another attempt runs)',
      body: { type: 'object', additionalProperties: false, properties: {} },
      async handle(ctx) {
        await ctx.readJson();
        const result = await sharedWorldRuntime(app.store).runTurn({
          world_slug: ctx.params.world_slug ?? '',
        });
        return {
          status: result.status === 'committed' ? 201 : 200,
          json: { ...result, links: { attempt: `/attempts/${result.attempt_id}` } },
        };
      },
    },
  ];
}
