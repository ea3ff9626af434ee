/**
 * What a person does to a world from the browser: "Run turn" (one or more, in order) on the world's
 * page and "Fork" at a turn from the turn's page — forms posted to `/worlds/…/forms/…`, answered by a
 * redirect to the page that shows the result.
 */
import { forkWorld, sharedWorldRuntime } from '../../../runtimes/world/index.ts';
import { h, type Markup } from '../html/render.ts';
import type { AppServices, Route } from '../route.ts';
import { hrefs } from './common.ts';
import {
  actionForm,
  asFieldError,
  type FieldErrors,
  field,
  firstSignal,
  formAgain,
  pathParams,
  postedForm,
  seeOther,
  started,
} from './forms.ts';

/** At most this many turns per press of "Run turn". */
export const MAX_TURNS_PER_RUN = 20;

const runTurnAction = (slug: string) => `${hrefs.world(slug)}/forms/turns`;
const forkAction = (slug: string, turn: number) => `${hrefs.worldTurn(slug, turn)}/forms/fork`;

export function runTurnForm(
  slug: string,
  csrf: string | undefined,
  errors?: FieldErrors,
  turns = '1',
): Markup {
  return actionForm({
    id: 'run-turn',
    action: runTurnAction(slug),
    button: 'Run turn',
    csrf,
    errors: errors ?? {},
    fields: field({
      form: 'run-turn',
      name: 'turns',
      label: 'Turns',
      type: 'number',
      min: 1,
      max: MAX_TURNS_PER_RUN,
      value: turns,
      required: true,
      errors,
    }),
  });
}

export function forkForm(
  slug: string,
  turn: number,
  csrf: string | undefined,
  errors?: FieldErrors,
  name = '',
): Markup {
  return actionForm({
    id: 'fork',
    action: forkAction(slug, turn),
    button: 'Fork',
    csrf,
    errors: errors ?? {},
    fields: field({
      form: 'fork',
      name: 'new_world_slug',
      label: 'New world name',
      value: name,
      required: true,
      errors,
      hint: `a new world that starts from ${slug} at turn ${turn}`,
    }),
  });
}

const queued = new Map<string, number>();

function queue(slug: string, delta: number): void {
  const n = (queued.get(slug) ?? 0) + delta;
  if (n > 0) queued.set(slug, n);
  else queued.delete(slug);
}

/** Turns of `slug` that a "Run turn" press in this process has still to finish. */
export function queuedTurns(slug: string): number {
  return queued.get(slug) ?? 0;
}

function turnsOf(text: string | undefined): number | null {
  const n = Number(text ?? '1');
  return /^\s*\d+\s*$/.test(text ?? '1') && n >= 1 && n <= MAX_TURNS_PER_RUN ? n : null;
}

export function worldActionRoutes(app: AppServices): Route[] {
  return [
    {
      method: 'POST',
      path: '/worlds/:world_slug/forms/turns',
      params: pathParams('world_slug'),
      summary: `Browser form: run the next turns of a world ({ turns: 1-${MAX_TURNS_PER_RUN} }), then see the world (303)`,
      async handle(ctx) {
        const slug = ctx.params.world_slug ?? '';
        const form = await postedForm(ctx);
        const turns = turnsOf(form.turns);
        if (turns === null) {
          const errors = { turns: `must be a whole number from 1 to ${MAX_TURNS_PER_RUN}` };
          return formAgain(
            ctx,
            `Run turns of ${slug}`,
            runTurnForm(slug, ctx.csrfToken, errors, form.turns),
            400,
          );
        }
        const runtime = sharedWorldRuntime(app.store);
        const begun = firstSignal();
        const first = runtime.runTurn({ world_slug: slug }, { onProgress: begun.signal });
        // The turns run one after another in the background; the world page follows them live, and
        // stays live between them while some are still to run.
        queue(slug, turns);
        void (async () => {
          try {
            await first;
            queue(slug, -1);
            for (let i = 1; i < turns; i++) {
              await runtime.runTurn({ world_slug: slug });
              queue(slug, -1);
            }
          } finally {
            queue(slug, -Number.MAX_SAFE_INTEGER);
          }
        })().catch(() => {});
        await started(first, begun.begun);
        return seeOther(ctx, hrefs.world(slug));
      },
    },
    {
      method: 'POST',
      path: '/worlds/:world_slug/turns/:turn/forms/fork',
      params: pathParams('world_slug', 'turn'),
      summary: 'Browser form: fork a world at a turn ({ new_world_slug }), then see the fork (303)',
      async handle(ctx) {
        const slug = ctx.params.world_slug ?? '';
        const turn = Number(ctx.params.turn);
        const form = await postedForm(ctx);
        const name = (form.new_world_slug ?? '').trim();
        try {
          const fork = await forkWorld(app.store, {
            world_slug: slug,
            at_turn: Number.isInteger(turn) ? turn : -1,
            new_world_slug: name,
          });
          return seeOther(ctx, hrefs.world(fork.world_slug));
        } catch (err) {
          const { errors, status } = asFieldError(err, 'new_world_slug');
          return formAgain(
            ctx,
            `Fork ${slug} at turn ${turn}`,
            h`${forkForm(slug, turn, ctx.csrfToken, errors, name)}`,
            status,
            { crumbs: [{ href: hrefs.worldTurn(slug, turn), title: `${slug} · turn ${turn}` }] },
          );
        }
      },
    },
  ];
}
