/**
 * Two worlds, or two turns of one world, side by side: what differs, entity by entity (state, memory,
 * kind) and environment by environment, each with the patches that made each side since their common
 * ancestor (the same world's earlier turn, or the turn a fork was taken at). `GET /worlds/:world_slug/compare`.
 */
import { invalidInput } from '../../../core/errors.ts';
import { getWorld } from '../../../runtimes/world/index.ts';
import type { Queryable } from '../../../store/store.ts';
import { defaultCatalog, navOf } from '../catalog/index.ts';
import { negotiate } from '../html/negotiate.ts';
import { h, layout, type Markup } from '../html/render.ts';
import type { AppServices, Route } from '../route.ts';
import { hrefs } from './common.ts';
import { field } from './forms.ts';

/** Patches listed per side (the newest are cut beyond). */
export const COMPARE_PATCHES = 500;

interface Side {
  world_slug: string;
  turn: number;
}
interface Segment {
  world_slug: string;
  /** This world's own turns: (from, to]. */
  from: number;
  to: number;
}
type PatchRow = {
  attempt_id: string;
  patch_seq: number;
  world_slug: string;
  turn: number;
  subject_entity_id: string;
  narration: string;
  effects_json: string;
};

/** The worlds a side reads from, newest first: its own turns, then its parent's up to the fork, … */
async function lineage(store: Queryable, side: Side): Promise<Segment[]> {
  const out: Segment[] = [];
  let cur: Side | null = side;
  for (let depth = 0; cur && depth < 64; depth++) {
    const row: { parent_world_slug: string | null; fork_turn: number | null } | undefined = await store.get(
      'SELECT parent_world_slug, fork_turn FROM worlds WHERE world_slug = ?',
      [cur.world_slug],
    );
    if (!row) break;
    const from: number = row.parent_world_slug ? Number(row.fork_turn ?? 0) : 0;
    out.push({ world_slug: cur.world_slug, from, to: cur.turn });
    cur = row.parent_world_slug ? { world_slug: row.parent_world_slug, turn: from } : null;
  }
  return out;
}

/** Each side's own segments after the common ancestor. */
function sinceCommon(a: Segment[], b: Segment[]): [Segment[], Segment[]] {
  for (let i = 0; i < a.length; i++) {
    const j = b.findIndex((s) => s.world_slug === a[i]!.world_slug);
    if (j < 0) continue;
    const common = Math.min(a[i]!.to, b[j]!.to);
    const cut = (segs: Segment[], k: number) => [
      ...segs.slice(0, k),
      { ...segs[k]!, from: Math.max(segs[k]!.from, common) },
    ];
    return [cut(a, i), cut(b, j)];
  }
  return [a, b];
}

async function patchesOf(store: Queryable, segments: Segment[]): Promise<PatchRow[]> {
  const out: PatchRow[] = [];
  for (const s of segments) {
    if (s.to <= s.from) continue;
    out.push(
      ...(await store.all<PatchRow>(
        `SELECT p.attempt_id, p.patch_seq, p.world_slug, p.turn, p.subject_entity_id, p.narration, p.effects_json
           FROM world_patches p JOIN world_turns t ON t.attempt_id = p.attempt_id AND t.world_slug = p.world_slug
          WHERE p.world_slug = ? AND p.turn > ? AND p.turn <= ? ORDER BY p.turn, p.patch_seq LIMIT ?`,
        [s.world_slug, s.from, s.to, COMPARE_PATCHES],
      )),
    );
  }
  return out.sort((x, y) => Number(x.turn) - Number(y.turn)).slice(-COMPARE_PATCHES);
}

/** Whether a patch touched `target` (an entity id or an environment label). */
function touches(p: PatchRow, target: string): boolean {
  if (p.subject_entity_id === target) return true;
  try {
    const effects = JSON.parse(p.effects_json) as Array<Record<string, unknown>>;
    return effects.some(
      (e) => e.entity_id === target || e.environment_label === target || e.label === target,
    );
  } catch {
    return false;
  }
}

function patchLinks(patches: PatchRow[], target: string): Markup {
  const mine = patches.filter((p) => touches(p, target));
  if (!mine.length) return h`<span class="muted">none</span>`;
  return h`<ul class="patches">${mine.map(
    (p) =>
      h`<li><a href="${hrefs.attempt(p.attempt_id)}#patch-${String(p.patch_seq)}">${p.world_slug} turn ${String(p.turn)} · patch #${String(
        p.patch_seq,
      )}</a> ${p.narration}</li>`,
  )}</ul>`;
}

function sideOf(slug: string, turn: string | null, fallback: number): Side {
  if (turn === null || turn === '') return { world_slug: slug, turn: fallback };
  if (!/^\d{1,9}$/.test(turn)) throw invalidInput('a turn is a non-negative integer', { turn });
  return { world_slug: slug, turn: Number(turn) };
}

type Entity = Record<string, unknown>;
const FIELDS = ['kind', 'state', 'memory'] as const;
const text = (v: unknown) =>
  v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v);

export async function compareWorlds(store: Queryable, a: Side, b: Side) {
  const [wa, wb] = await Promise.all([getWorld(store, a), getWorld(store, b)]);
  const [sa, sb] = sinceCommon(await lineage(store, a), await lineage(store, b));
  const [pa, pb] = await Promise.all([patchesOf(store, sa), patchesOf(store, sb)]);
  const ea = wa.entities as Record<string, Entity>;
  const eb = wb.entities as Record<string, Entity>;
  const entities = [...new Set([...Object.keys(ea), ...Object.keys(eb)])].flatMap((id) => {
    const fields = FIELDS.filter((f) => text(ea[id]?.[f]) !== text(eb[id]?.[f]) || !ea[id] !== !eb[id]);
    return fields.length
      ? [
          {
            entity_id: id,
            fields: fields.map((f) => ({ field: f, a: text(ea[id]?.[f]), b: text(eb[id]?.[f]) })),
          },
        ]
      : [];
  });
  const va = wa.environments as Record<string, { content?: string }>;
  const vb = wb.environments as Record<string, { content?: string }>;
  const environments = [...new Set([...Object.keys(va), ...Object.keys(vb)])]
    .filter((k) => text(va[k]?.content) !== text(vb[k]?.content))
    .map((k) => ({ environment_label: k, a: text(va[k]?.content), b: text(vb[k]?.content) }));
  return {
    a: { ...a, turn: wa.turn },
    b: { ...b, turn: wb.turn },
    entities,
    environments,
    patches: { a: pa, b: pb },
  };
}

/** The GET form that picks the two sides (on the world's page and the compare page). */
export function compareForm(slug: string, a?: Side, b?: Side): Markup {
  const f = 'compare';
  return h`<form method="get" action="${hrefs.world(slug)}/compare" class="action" data-form="compare">${field(
    {
      form: f,
      name: 'turn',
      label: `Turn of ${slug}`,
      type: 'number',
      min: 0,
      value: a ? String(a.turn) : '',
    },
  )}${field({ form: f, name: 'with', label: 'Other world', value: b?.world_slug ?? slug })}${field({
    form: f,
    name: 'with_turn',
    label: 'Its turn',
    type: 'number',
    min: 0,
    value: b ? String(b.turn) : '',
    hint: 'empty: its latest',
  })}<button type="submit">Compare</button></form>`;
}

export function compareRoutes(app: AppServices): Route[] {
  return [
    {
      method: 'GET',
      path: '/worlds/:world_slug/compare',
      summary:
        'Two worlds or two turns compared: what differs entity by entity, with the patches that made each side (turn, with, with_turn)',
      params: [
        { name: 'world_slug', in: 'path', required: true, schema: { type: 'string' } },
        {
          name: 'turn',
          in: 'query',
          schema: { type: 'integer', minimum: 0 },
          description: 'default: the latest',
        },
        {
          name: 'with',
          in: 'query',
          schema: { type: 'string' },
          description: 'the other world (default: the same)',
        },
        {
          name: 'with_turn',
          in: 'query',
          schema: { type: 'integer', minimum: 0 },
          description: 'default: its latest',
        },
      ],
      async handle(ctx) {
        const slug = ctx.params.world_slug ?? '';
        const q = ctx.url.searchParams;
        const head = async (s: string) => (await getWorld(app.store, { world_slug: s })).head_turn;
        const other = q.get('with') || slug;
        const a = sideOf(slug, q.get('turn'), await head(slug));
        const b = sideOf(other, q.get('with_turn'), await head(other));
        const cmp = await compareWorlds(app.store, a, b);
        if (negotiate(ctx.c) === 'json')
          return {
            json: {
              ...cmp,
              patches: {
                a: cmp.patches.a.map(({ effects_json: _e, ...p }) => p),
                b: cmp.patches.b.map(({ effects_json: _e, ...p }) => p),
              },
            },
          };
        const name = (s: Side) => `${s.world_slug} @ turn ${s.turn}`;
        const body = h`${compareForm(slug, cmp.a, cmp.b)}
<p><a href="${hrefs.worldTurn(cmp.a.world_slug, cmp.a.turn)}">${name(cmp.a)}</a> compared with <a href="${hrefs.worldTurn(
          cmp.b.world_slug,
          cmp.b.turn,
        )}">${name(cmp.b)}</a>: ${String(cmp.entities.length)} entities and ${String(cmp.environments.length)} environments differ.</p>
<h2>Entities</h2>${
          cmp.entities.length
            ? h`<div class="scroll"><table><thead><tr><th scope="col">entity</th><th scope="col">field</th><th scope="col">${name(cmp.a)}</th><th scope="col">${name(
                cmp.b,
              )}</th></tr></thead><tbody>${cmp.entities.map(
                (e) =>
                  h`${e.fields.map(
                    (f, i) =>
                      h`<tr class="change">${i === 0 ? h`<th scope="row" rowspan="${String(e.fields.length)}">${e.entity_id}</th>` : ''}<td>${f.field}</td><td class="before">${f.a}</td><td class="after">${f.b}</td></tr>`,
                  )}<tr><td></td><td class="muted">patches</td><td>${patchLinks(cmp.patches.a, e.entity_id)}</td><td>${patchLinks(
                    cmp.patches.b,
                    e.entity_id,
                  )}</td></tr>`,
              )}</tbody></table></div>`
            : h`<p class="muted">No entity differs.</p>`
        }
<h2>Environments</h2>${
          cmp.environments.length
            ? h`<div class="scroll"><table><thead><tr><th scope="col">environment</th><th scope="col">${name(cmp.a)}</th><th scope="col">${name(cmp.b)}</th></tr></thead><tbody>${cmp.environments.map(
                (e) =>
                  h`<tr class="change"><th scope="row">${e.environment_label}</th><td class="before">${e.a}</td><td class="after">${e.b}</td></tr><tr><td class="muted">patches</td><td>${patchLinks(
                    cmp.patches.a,
                    e.environment_label,
                  )}</td><td>${patchLinks(cmp.patches.b, e.environment_label)}</td></tr>`,
              )}</tbody></table></div>`
            : h`<p class="muted">No environment differs.</p>`
        }<p><a href="?${new URLSearchParams({ ...Object.fromEntries(q), format: 'json' })}">as JSON</a></p>`;
        return {
          html: layout(
            `Compare ${name(cmp.a)} with ${name(cmp.b)}`,
            navOf(defaultCatalog),
            body,
            ctx.csrfToken,
            {
              path: ctx.url.pathname,
              crumbs: [
                { href: '/worlds', title: 'worlds' },
                { href: hrefs.world(slug), title: slug },
              ],
            },
          ),
        };
      },
    },
  ];
}
