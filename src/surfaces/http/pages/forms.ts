/**
 * The browser's action forms: a real `<form method="post">` with labelled fields, the session's CSRF
 * token and a submit button that says what it does; the posted fields read as strings; the answer a
 * redirect to the page that shows the result (POST/redirect/GET), or the form again with each error
 * next to its field. `data-enhance` lets the live script submit it without leaving the page.
 */
import { invalidInput, isNoemaError } from '../../../core/errors.ts';
import { defaultCatalog, navOf } from '../catalog/index.ts';
import { httpStatusOf } from '../errors.ts';
import { h, type LayoutOptions, layout, type Markup } from '../html/render.ts';
import type { ParamDoc, Reply, RouteContext } from '../route.ts';

/** Field name → why its value was refused (`''`: about the whole form). */
export type FieldErrors = Record<string, string>;

export interface ActionForm {
  /** Names the form on its page (`data-form`), so a re-read page can replace it. */
  id: string;
  action: string;
  button: string;
  csrf: string | undefined;
  fields: Markup | '';
  errors?: FieldErrors;
}

export function actionForm(f: ActionForm): Markup {
  const whole = f.errors?.[''];
  return h`<form method="post" action="${f.action}" class="action" data-form="${f.id}" data-enhance>${
    f.csrf ? h`<input type="hidden" name="_csrf" value="${f.csrf}">` : ''
  }${whole ? h`<p class="field-error" role="alert">${whole}</p>` : ''}${f.fields}<button type="submit">${f.button}</button></form>`;
}

export interface FieldOptions {
  name: string;
  label: string;
  value?: string | undefined;
  errors?: FieldErrors | undefined;
  required?: boolean;
  /** `textarea` for long text and JSON; `select` with `options`. */
  as?: 'input' | 'textarea' | 'select';
  type?: 'text' | 'number';
  min?: number;
  max?: number;
  options?: ReadonlyArray<string>;
  hint?: string | undefined;
  /** Distinguishes fields of the same name on one page (ids must be unique). */
  form: string;
}

/** A labelled field; its error (if any) is announced, tied to it by `aria-describedby`. */
export function field(o: FieldOptions): Markup {
  const id = `${o.form}-${o.name}`.replace(/[^A-Za-z0-9_-]/g, '_');
  const error = o.errors?.[o.name];
  const described = [o.hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  const attrs = h`id="${id}" name="${o.name}"${o.required ? h` required` : ''}${
    described ? h` aria-describedby="${described}"` : ''
  }${error ? h` aria-invalid="true"` : ''}`;
  const value = o.value ?? '';
  const control =
    o.as === 'textarea'
      ? h`<textarea ${attrs} rows="3">${value}</textarea>`
      : o.as === 'select'
        ? h`<select ${attrs}>${o.required ? '' : h`<option value="">—</option>`}${(o.options ?? []).map(
            (v) => h`<option${v === value ? h` selected` : ''}>${v}</option>`,
          )}</select>`
        : h`<input ${attrs} type="${o.type ?? 'text'}" value="${value}"${o.min !== undefined ? h` min="${String(o.min)}"` : ''}${
            o.max !== undefined ? h` max="${String(o.max)}"` : ''
          }>`;
  return h`<div class="field"><label for="${id}">${o.label}</label>${control}${
    o.hint ? h`<span class="muted" id="${id}-hint">${o.hint}</span>` : ''
  }${error ? h`<span class="field-error" id="${id}-error">${error}</span>` : ''}</div>`;
}

/** The path parameters of a form route, for the route table and `/openapi.json`. */
export function pathParams(...names: string[]): ParamDoc[] {
  return names.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
}

/** The posted fields as strings (`_csrf` left out). A body that is not a form is INVALID_INPUT. */
export async function postedForm(ctx: RouteContext): Promise<Record<string, string>> {
  const type = ctx.c.req.header('content-type') ?? '';
  if (!type.startsWith('application/x-www-form-urlencoded') && !type.startsWith('multipart/form-data'))
    throw invalidInput(
      'this route takes an HTML form',
      { content_type: type },
      'post application/x-www-form-urlencoded fields (the page’s form does)',
    );
  const body = await ctx.c.req.parseBody();
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(body)) if (k !== '_csrf' && typeof v === 'string') out[k] = v;
  return out;
}

/** POST/redirect/GET: the page that shows what the form did. */
export function seeOther(ctx: RouteContext, href: string): Response {
  return ctx.c.redirect(href, 303);
}

/** The form again, its errors next to their fields, as its own page (status: the refusal's). */
export function formAgain(
  ctx: RouteContext,
  title: string,
  form: Markup,
  status: number,
  options: LayoutOptions = {},
): Reply {
  return {
    status,
    html: layout(title, navOf(defaultCatalog), form, ctx.csrfToken, { path: ctx.url.pathname, ...options }),
  };
}

/** A NoemaError a person can fix by changing `field` becomes that field's error; others are thrown. */
export function asFieldError(err: unknown, fieldName: string): { errors: FieldErrors; status: number } {
  if (!isNoemaError(err) || httpStatusOf(err) >= 500) throw err;
  return { errors: { [fieldName]: err.message }, status: httpStatusOf(err) };
}

/** A promise that resolves at the first call of its `signal` (a runtime's first progress event). */
export function firstSignal(): { begun: Promise<void>; signal: () => void } {
  let signal = () => {};
  const begun = new Promise<void>((resolve) => {
    signal = () => resolve();
  });
  return { begun, signal };
}

/**
 * Waits for background work to begin (`begun`: its first progress event) or end: its failure if it
 * fails first (a refusal: busy, unknown, invalid), so the page redirected to already shows it running
 * — or `ms` at most. The work runs on; its own records say how it ended.
 */
export async function started(work: Promise<unknown>, begun: Promise<void>, ms = 10_000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const settled = work.then(
    () => null,
    (err: unknown) => ({ err }),
  );
  const outcome = await Promise.race([
    settled,
    begun.then(() => null),
    new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), ms);
    }),
  ]);
  clearTimeout(timer);
  if (outcome) throw outcome.err;
}
