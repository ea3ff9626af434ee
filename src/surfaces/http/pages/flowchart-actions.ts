/**
 * Running flowcharts from the browser: "Run flowchart" (its input as JSON) on a flowchart's page and
 * "Cancel run" on a running run's page — forms posted to `…/forms/…`, executed by the same flowchart
 * API handlers as `/api/flowcharts/…`, answered by a redirect to the run's page (live while it runs).
 */
import { NoemaError } from '../../../core/errors.ts';
import { readFlowRunRow } from '../../../runtimes/flow/index.ts';
import { type FlowApiRoute, type FlowServices, flowApiRoutes } from '../flow/api.ts';
import type { FlowEventHub } from '../flow/events.ts';
import { h, type Markup } from '../html/render.ts';
import type { AppServices, Route, RouteContext } from '../route.ts';
import { enc } from './common.ts';
import {
  actionForm,
  asFieldError,
  type FieldErrors,
  field,
  formAgain,
  pathParams,
  postedForm,
  seeOther,
} from './forms.ts';

const runHref = (id: string) => `/flowchart-runs/${enc(id)}`;

export function runFlowchartForm(
  flowchart_id: string,
  csrf: string | undefined,
  errors?: FieldErrors,
  input = '{}',
): Markup {
  return actionForm({
    id: 'run-flowchart',
    action: `/flowcharts/${enc(flowchart_id)}/forms/runs`,
    button: 'Run flowchart',
    csrf,
    errors: errors ?? {},
    fields: field({
      form: 'run-flowchart',
      name: 'input',
      label: 'Input (JSON)',
      as: 'textarea',
      value: input,
      errors,
      hint: 'the run’s input, a JSON value (empty for none)',
    }),
  });
}

export function cancelRunForm(
  flowchart_run_id: string,
  csrf: string | undefined,
  errors?: FieldErrors,
): Markup {
  return actionForm({
    id: 'cancel-run',
    action: `${runHref(flowchart_run_id)}/forms/cancel`,
    button: 'Cancel run',
    csrf,
    errors: errors ?? {},
    fields: '',
  });
}

function apiRoute(method: FlowApiRoute['method'], path: string): FlowApiRoute {
  const route = flowApiRoutes.find((r) => r.method === method && r.path === path);
  if (!route) throw new Error(`the flowchart API has no ${method} ${path}`);
  return route;
}

export function flowchartActionRoutes(app: AppServices & { flowEvents?: FlowEventHub }): Route[] {
  const services = (): FlowServices => {
    if (!app.engine) throw new NoemaError('STORE_UNAVAILABLE', 'this server runs no engine', { status: 503 });
    const events = app.flowEvents;
    return {
      store: app.store,
      engine: app.engine,
      onBackgroundError: (err) =>
        process.emitWarning(`noema: flowchart run failed to execute: ${String(err)}`),
      ...(events ? { watchRun: (run) => events.watch(run) } : {}),
    };
  };
  const call = async (
    ctx: RouteContext,
    route: FlowApiRoute,
    params: Record<string, string>,
    body?: unknown,
  ) =>
    route.handle(services(), {
      params,
      query: new URLSearchParams(),
      readJson: async () => body,
      request_id: ctx.requestId,
      correlation_id: ctx.correlationId,
    });
  const start = apiRoute('POST', '/flowcharts/:flowchart_id/runs');
  const cancel = apiRoute('POST', '/flowcharts/:flowchart_id/runs/:flowchart_run_id/cancel');
  const getRun = apiRoute('GET', '/flowcharts/:flowchart_id/runs/:flowchart_run_id');
  return [
    {
      method: 'POST',
      path: '/flowcharts/:flowchart_id/forms/runs',
      params: pathParams('flowchart_id'),
      summary: 'Browser form: start a run of this flowchart ({ input: JSON text }), then see the run (303)',
      async handle(ctx) {
        const flowchart_id = ctx.params.flowchart_id ?? '';
        const { input = '' } = await postedForm(ctx);
        const again = (errors: FieldErrors, status: number) =>
          formAgain(
            ctx,
            'Run flowchart',
            runFlowchartForm(flowchart_id, ctx.csrfToken, errors, input),
            status,
          );
        let value: unknown;
        if (input.trim() !== '') {
          try {
            value = JSON.parse(input);
          } catch (err) {
            return again({ input: `is not valid JSON (${(err as Error).message})` }, 400);
          }
        }
        try {
          const reply = await call(ctx, start, { flowchart_id }, value === undefined ? {} : { input: value });
          return seeOther(ctx, runHref(String(reply.json.flowchart_run_id)));
        } catch (err) {
          const { errors, status } = asFieldError(err, 'input');
          return again(errors, status);
        }
      },
    },
    {
      method: 'POST',
      path: '/flowchart-runs/:flowchart_run_id/forms/cancel',
      params: pathParams('flowchart_run_id'),
      summary: 'Browser form: cancel a flowchart run that has not finished, then see it (303)',
      async handle(ctx) {
        const flowchart_run_id = ctx.params.flowchart_run_id ?? '';
        await postedForm(ctx);
        const row = await readFlowRunRow(app.store, flowchart_run_id);
        const params = { flowchart_id: row.flowchart_id, flowchart_run_id };
        try {
          await call(ctx, cancel, params);
        } catch (err) {
          // Already finished: the run's page says how it ended.
          await call(ctx, getRun, params);
          const { errors, status } = asFieldError(err, '');
          return formAgain(
            ctx,
            'Cancel run',
            h`${cancelRunForm(flowchart_run_id, ctx.csrfToken, errors)}<p><a href="${runHref(flowchart_run_id)}">the run</a></p>`,
            status,
          );
        }
        return seeOther(ctx, runHref(flowchart_run_id));
      },
    },
  ];
}
