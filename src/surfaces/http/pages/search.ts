/**
 * `GET /search`: full-text search across LLM prompts and answers, agent messages and world narrations,
 * a page of hits (newest first) each linked to its LLM call, session or world turn; HTML with a search
 * form, or JSON. A query that cannot be searched is the form again with its error (400).
 */
import { isNoemaError } from '../../../core/errors.ts';
import { searchWords } from '../../../store/store.ts';
import { defaultCatalog, navOf } from '../catalog/index.ts';
import { negotiate } from '../html/negotiate.ts';
import { h, layout, type Markup } from '../html/render.ts';
import type { AppServices, Route } from '../route.ts';
import { enc, hrefs, when } from './common.ts';
import { asFieldError, type FieldErrors, field } from './forms.ts';
import {
  SEARCH_KINDS,
  SEARCH_PAGE,
  SEARCH_QUERY_MAX,
  type SearchHit,
  type SearchPage,
  searchTexts,
} from './search-read.ts';

export const SEARCH_PATH = '/search';

const KIND_TITLE: Record<string, string> = {
  prompt: 'LLM prompt',
  answer: 'LLM answer',
  message: 'agent message',
  narration: 'world narration',
};

function searchForm(q: string, kind: string, errors: FieldErrors = {}): Markup {
  const f = 'search';
  return h`<form method="get" action="${SEARCH_PATH}" class="action" role="search" aria-label="Search prompts, answers, messages and narrations" data-form="search">${field(
    {
      form: f,
      name: 'q',
      label: 'Words',
      value: q,
      errors,
      required: true,
      hint: `every word must appear; at most ${SEARCH_QUERY_MAX} characters`,
    },
  )}${field({ form: f, name: 'kind', label: 'In', as: 'select', options: SEARCH_KINDS, value: kind, errors })}<button type="submit">Search</button></form>`;
}

function where(hit: SearchHit): Markup {
  switch (hit.kind) {
    case 'prompt':
    case 'answer':
      return h`<a href="${hrefs.llmCall(hit.ref_id)}" title="${hit.ref_id}">LLM call ${hit.ref_id.slice(0, 12)}…</a>${
        hit.context
          ? h` · <a href="${hit.ref_seq !== null ? hrefs.worldTurn(hit.context, hit.ref_seq) : hrefs.world(hit.context)}">${hit.context}${
              hit.ref_seq !== null ? ` turn ${hit.ref_seq}` : ''
            }</a>`
          : ''
      }`;
    case 'message':
      return h`<a href="${hrefs.session(hit.ref_id)}" title="${hit.ref_id}">session ${hit.ref_id.slice(0, 12)}…</a> · message ${String(
        hit.ref_seq ?? '',
      )}${hit.context ? ` (${hit.context})` : ''}`;
    case 'narration':
      return h`<a href="${hrefs.worldTurn(hit.ref_id, hit.ref_seq ?? 0)}">${hit.ref_id} turn ${String(hit.ref_seq ?? '')}</a>${
        hit.context ? ` · ${hit.context}` : ''
      }`;
  }
}

/** The snippet with the query's words marked (each piece escaped). */
function marked(snippet: string, words: readonly string[]): Markup {
  const pattern = new RegExp(
    `(?<![\\p{L}\\p{N}])(${words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})(?![\\p{L}\\p{N}])`,
    'giu',
  );
  const parts = snippet.split(pattern);
  return h`${parts.map((p, i) => (i % 2 === 1 ? h`<mark>${p}</mark>` : p))}`;
}

function results(page: SearchPage): Markup {
  const words = searchWords(page.q);
  const next = page.next
    ? h`<nav class="pager" aria-label="Search results pages"><a href="${SEARCH_PATH}?q=${enc(page.q)}${
        page.kind ? `&kind=${enc(page.kind)}` : ''
      }&before=${String(page.next)}">older results</a></nav>`
    : '';
  if (page.items.length === 0)
    return h`<p class="muted">Nothing matches every word${page.next ? ' among the newest texts read' : ''}.</p>${next}`;
  return h`<ol class="search-hits">${page.items.map(
    (hit) =>
      h`<li><div class="muted">${KIND_TITLE[hit.kind] ?? hit.kind} · ${where(hit)}${hit.at !== null ? ` · ${when(hit.at)}` : ''}</div><p class="snippet">${marked(
        hit.snippet,
        words,
      )}</p></li>`,
  )}</ol>${next}`;
}

export function searchRoutes(app: AppServices): Route[] {
  return [
    {
      method: 'GET',
      path: SEARCH_PATH,
      summary: `Full-text search across LLM prompts and answers, agent messages and world narrations (${SEARCH_PAGE} hits a page, newest first)`,
      params: [
        {
          name: 'q',
          in: 'query',
          schema: { type: 'string', maxLength: SEARCH_QUERY_MAX },
          description: 'words; every one must appear',
        },
        { name: 'kind', in: 'query', schema: { type: 'string', enum: [...SEARCH_KINDS] } },
        {
          name: 'before',
          in: 'query',
          schema: { type: 'integer', minimum: 1 },
          description: 'the next page (from `next`)',
        },
      ],
      async handle(ctx) {
        const sp = ctx.url.searchParams;
        const q = sp.get('q') ?? '';
        const kind = sp.get('kind') ?? '';
        const json = negotiate(ctx.c) === 'json';
        const page = (body: Markup, status = 200) => ({
          status,
          html: layout('Search', navOf(defaultCatalog), body, ctx.csrfToken, { path: SEARCH_PATH }),
        });
        if (q.trim() === '' && !json) return page(searchForm('', kind));
        try {
          const found = await searchTexts(app.store, { q, kind, before: sp.get('before') });
          if (json) return { json: found };
          return page(h`${searchForm(q, kind)}${results(found)}`);
        } catch (err) {
          if (json || !isNoemaError(err)) throw err;
          const fieldName = err.details?.field === 'kind' ? 'kind' : 'q';
          const { errors, status } = asFieldError(err, fieldName);
          return page(searchForm(q, kind, errors), status);
        }
      },
    },
  ];
}
