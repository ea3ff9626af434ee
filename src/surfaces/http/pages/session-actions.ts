/**
 * Chatting with an agent from the browser: "Start session" on an agent's page, "Send" on a session's
 * page, and the waiting ECS form as real fields ("Send answer") — forms posted to `…/forms/…`. A
 * message or an answer starts the turn and redirects at once to the session page, which follows the
 * turn live over the session's event stream (without JavaScript it refreshes while running).
 */
import { isNoemaError } from '../../../core/errors.ts';
import type { SessionEvent } from '../../../runtimes/agent/index.ts';
import { coerceAnswer, type FormField, formFields } from '../../forms/schema-form.ts';
import { agentRuntimeFor } from '../agent-runtime.ts';
import { agentHandlers } from '../agents.ts';
import { h, type Markup } from '../html/render.ts';
import { publishLive } from '../live-text.ts';
import type { AppServices, Route, RouteContext } from '../route.ts';
import { enc, hrefs } from './common.ts';
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
import { recentSessionEvents, waitingForm } from './session-turns.ts';

export function startSessionForm(
  agentHash: string,
  csrf: string | undefined,
  errors?: FieldErrors,
  user = '',
): Markup {
  return actionForm({
    id: 'start-session',
    action: `/agents/hash/${enc(agentHash)}/forms/session`,
    button: 'Start session',
    csrf,
    errors: errors ?? {},
    fields: field({
      form: 'start-session',
      name: 'user_id',
      label: 'User id',
      value: user,
      required: true,
      errors,
    }),
  });
}

export function messageForm(
  session_id: string,
  csrf: string | undefined,
  errors?: FieldErrors,
  text = '',
): Markup {
  return actionForm({
    id: 'message',
    action: `${hrefs.session(session_id)}/forms/message`,
    button: 'Send',
    csrf,
    errors: errors ?? {},
    fields: field({
      form: 'message',
      name: 'content',
      label: 'Message',
      as: 'textarea',
      value: text,
      required: true,
      errors,
    }),
  });
}

function ecsField(f: FormField, errors: FieldErrors | undefined, value: string | undefined): Markup {
  const label = f.title ?? f.name;
  const common = {
    form: 'ecs',
    name: f.name,
    label,
    required: f.required,
    errors,
    value,
    hint: f.description,
  };
  if (f.input === 'choice') return field({ ...common, as: 'select', options: f.options });
  if (f.input === 'boolean') return field({ ...common, as: 'select', options: ['yes', 'no'] });
  if (f.input === 'json') return field({ ...common, as: 'textarea', hint: f.description ?? 'JSON' });
  if (f.input === 'number') return field({ ...common, type: 'number' });
  return field(common);
}

/** The ECS form as fields generated from its JSON Schema (`fields`); JSON in one box when it has none. */
export function ecsForm(
  session_id: string,
  waiting: { contract_id: string; form: Record<string, unknown> },
  csrf: string | undefined,
  errors?: FieldErrors,
  values: Record<string, string> = {},
): Markup {
  const fields = formFields(waiting.form.fields);
  const inputs = fields.length
    ? fields.map((f) => ecsField(f, errors, values[f.name]))
    : [
        field({
          form: 'ecs',
          name: '_json',
          label: 'Answer (JSON)',
          as: 'textarea',
          value: values._json,
          errors,
        }),
      ];
  return h`<div class="panel ecs"><h3>${String(waiting.form.title ?? 'The agent asks')}</h3>${
    waiting.form.description ? h`<p>${String(waiting.form.description)}</p>` : ''
  }${actionForm({
    id: 'ecs',
    action: `${hrefs.session(session_id)}/forms/ecs`,
    button: 'Send answer',
    csrf,
    errors: errors ?? {},
    fields: h`<input type="hidden" name="_contract_id" value="${waiting.contract_id}">${inputs}`,
  })}</div>`;
}

function answerOf(waiting: { form: Record<string, unknown> }, posted: Record<string, string>) {
  if (formFields(waiting.form.fields).length) return coerceAnswer(waiting.form.fields, posted);
  try {
    return { value: JSON.parse(posted._json ?? '') as Record<string, unknown>, errors: {} };
  } catch {
    return { value: {}, errors: { _json: 'is not valid JSON' } as FieldErrors };
  }
}

/** Issues of a SCHEMA_INVALID refusal (`/day must be …`) as field errors. */
function schemaErrors(err: unknown): FieldErrors | null {
  if (!isNoemaError(err) || err.code !== 'SCHEMA_INVALID') return null;
  const issues = (err.details.errors ?? err.details.issues) as
    | Array<{ path?: string; message?: string }>
    | undefined;
  const out: FieldErrors = {};
  for (const i of issues ?? []) out[(i.path ?? '').split('/')[1] ?? ''] ??= i.message ?? 'is invalid';
  return Object.keys(out).length ? out : { '': err.message };
}

export function sessionActionRoutes(app: AppServices): Route[] {
  const runtime = () => agentRuntimeFor(app.store);
  const sessionPage = (ctx: RouteContext) => hrefs.session(ctx.params.session_id ?? '');
  return [
    {
      method: 'POST',
      path: '/agents/hash/:hash/forms/session',
      params: pathParams('hash'),
      summary: 'Browser form: start a session with this agent ({ user_id }), then see it (303)',
      async handle(ctx) {
        const hash = ctx.params.hash ?? '';
        const { user_id = '' } = await postedForm(ctx);
        try {
          const created = await agentHandlers(await runtime(), app.store).createSession({
            agent_ref: { hash },
            user_id: user_id.trim(),
          });
          return seeOther(ctx, hrefs.session((created.json as { session_id: string }).session_id));
        } catch (err) {
          const { errors, status } = asFieldError(err, 'user_id');
          return formAgain(
            ctx,
            'Start a session',
            startSessionForm(hash, ctx.csrfToken, errors, user_id),
            status,
          );
        }
      },
    },
    {
      method: 'POST',
      path: '/sessions/:session_id/forms/message',
      params: pathParams('session_id'),
      summary:
        'Browser form: send a message ({ content }); the turn runs on, the session page follows it (303)',
      async handle(ctx) {
        const session_id = ctx.params.session_id ?? '';
        const { content = '' } = await postedForm(ctx);
        if (content.trim() === '')
          return formAgain(
            ctx,
            'Send a message',
            messageForm(session_id, ctx.csrfToken, { content: 'is required' }),
            400,
          );
        try {
          const first = firstSignal();
          const onEvent = (e: SessionEvent) => {
            first.signal();
            publishLive(session_id, e);
          };
          await started((await runtime()).sendMessage(session_id, { content }, onEvent), first.begun);
        } catch (err) {
          const { errors, status } = asFieldError(err, 'content');
          return formAgain(
            ctx,
            'Send a message',
            messageForm(session_id, ctx.csrfToken, errors, content),
            status,
          );
        }
        return seeOther(ctx, sessionPage(ctx));
      },
    },
    {
      method: 'POST',
      path: '/sessions/:session_id/forms/ecs',
      params: pathParams('session_id'),
      summary:
        'Browser form: answer the waiting ECS form (its fields, coerced and checked by its schema), then continue the session (303)',
      async handle(ctx) {
        const session_id = ctx.params.session_id ?? '';
        const posted = await postedForm(ctx);
        const rt = await runtime();
        await rt.getSession(session_id, { max_messages: 1 }); // UNKNOWN_SESSION first
        const waiting = waitingForm((await recentSessionEvents(app.store, session_id, 50)).events);
        const again = (errors: FieldErrors, status: number) =>
          formAgain(
            ctx,
            'Answer the form',
            waiting
              ? ecsForm(session_id, waiting, ctx.csrfToken, errors, posted)
              : h`<p>${errors[''] ?? ''}</p>`,
            status,
          );
        if (!waiting || (posted._contract_id && posted._contract_id !== waiting.contract_id))
          return again({ '': 'the session is not waiting on this form any more' }, 409);
        const answer = answerOf(waiting, posted);
        if (Object.keys(answer.errors).length) return again(answer.errors, 422);
        try {
          await rt.respondEcs({ session_id, contract_id: waiting.contract_id, response: answer.value });
        } catch (err) {
          const errors = schemaErrors(err);
          if (errors) return again(errors, 422);
          const { errors: other, status } = asFieldError(err, '');
          return again(other, status);
        }
        const first = firstSignal();
        await started(rt.continueEcs({ session_id }, first.signal), first.begun);
        return seeOther(ctx, sessionPage(ctx));
      },
    },
  ];
}
