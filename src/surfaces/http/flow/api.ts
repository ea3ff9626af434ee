/**
 * The flowchart REST API of seed 003 under `/api`, as transport-free route descriptors: each handler
 * takes the parsed request and returns `{ status, json }` in the seed's success shape (`ok`, scope
 * ids, `count`/`limit`/`offset`, `items` or `item`, `request_id`, `correlation_id?`). Thrown
 * NoemaErrors become the shared error envelope (`flowApiError`). `routes.ts` mounts them on the app.
 */
import { type ErrorCode, invalidInput, NoemaError } from '../../../core/errors.ts';
import { hasControlChars } from '../../../core/ids.ts';
import type { Engine } from '../../../engine/index.ts';
import * as flow from '../../../runtimes/flow/index.ts';
import type { Store } from '../../../store/store.ts';
import { errorReply } from '../errors.ts';

export interface FlowServices {
  store: Store;
  /** A flow engine (flowchart node types registered); runs started here execute on it. */
  engine: Engine;
  /** Called with a background run's failure to start executing (logged by the server). */
  onBackgroundError?: (err: unknown) => void;
  /** Called before a run started here executes, so event streams see it from its first event. */
  watchRun?: (run: { flowchart_id: string; flowchart_run_id: string; created_at: string }) => Promise<void>;
}

export interface FlowApiRequest {
  params: Record<string, string>;
  query: URLSearchParams;
  readJson(): Promise<unknown>;
  request_id: string;
  correlation_id: string | undefined;
}

export interface FlowApiReply {
  status: number;
  json: Record<string, unknown>;
}

export interface FlowApiRoute {
  method: 'GET' | 'POST' | 'DELETE';
  /** Under `/api`; `:name` parameters. */
  path: string;
  summary: string;
  handle(svc: FlowServices, req: FlowApiRequest): Promise<FlowApiReply>;
}

type QuerySpec = Record<string, 'int' | 'string'>;
const PAGE: QuerySpec = { limit: 'int', offset: 'int' };

/** Parses the query against its spec: unknown names and malformed values are 400 INVALID_INPUT. */
function parseQuery(q: URLSearchParams, spec: QuerySpec): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const [k, v] of q) {
    const type = spec[k];
    if (!type)
      throw invalidInput(`unknown query parameter "${k}"`, { parameter: k, allowed: Object.keys(spec) });
    if (type === 'int') {
      if (!/^\d{1,9}$/.test(v)) throw invalidInput(`${k} must be a non-negative integer`, { parameter: k });
      out[k] = Number(v);
    } else {
      if (v === '' || v.length > 256 || hasControlChars(v))
        throw invalidInput(`invalid ${k}`, { parameter: k });
      out[k] = v;
    }
  }
  return out;
}

function positiveId(raw: string | undefined, name: string, code: ErrorCode): number {
  if (!raw || !/^\d{1,15}$/.test(raw) || Number(raw) < 1)
    throw new NoemaError(code, `no ${name} ${raw ?? ''}`.trim(), {
      status: 404,
      details: { [name]: raw ?? null },
    });
  return Number(raw);
}

function ok(req: FlowApiRequest, body: Record<string, unknown>, status = 200): FlowApiReply {
  return {
    status,
    json: {
      ok: true,
      ...body,
      request_id: req.request_id,
      ...(req.correlation_id ? { correlation_id: req.correlation_id } : {}),
    },
  };
}

/** The shared error envelope for anything a handler threw. */
export function flowApiError(
  err: unknown,
  req: Pick<FlowApiRequest, 'request_id' | 'correlation_id'>,
): FlowApiReply {
  // The same status table and envelope as every other route.
  const r = errorReply(err, req.request_id, req.correlation_id || undefined);
  return { status: r.status, json: r.body as unknown as Record<string, unknown> };
}

const page = (q: Record<string, string | number>) => ({
  ...(q.limit !== undefined ? { limit: q.limit as number } : {}),
  ...(q.offset !== undefined ? { offset: q.offset as number } : {}),
});

const ARTIFACT_FILTERS: QuerySpec = {
  ...PAGE,
  flowchart_id: 'string',
  flowchart_run_id: 'string',
  flowchart_node_id: 'string',
};

function scopedArtifactRoutes(
  segment: 'plans' | 'memories' | 'milestones',
  key: 'plan_id' | 'memory_id' | 'milestone_id',
  code: ErrorCode,
): FlowApiRoute[] {
  return [
    {
      method: 'GET',
      path: `/${segment}/:${key}/artifacts`,
      summary: `Node artifacts of one ${key.replace('_id', '')} (newest first; limit, offset, flowchart/run/node filters)`,
      async handle({ store }, req) {
        const id = positiveId(req.params[key], key, code);
        const q = parseQuery(req.query, ARTIFACT_FILTERS);
        const { limit: _l, offset: _o, ...filters } = q;
        return ok(
          req,
          await flow.artifactsOf(store, { [key]: id } as never, {
            ...(filters as Record<string, string>),
            ...page(q),
          }),
        );
      },
    },
    {
      method: 'GET',
      path: `/${segment}/:${key}/artifacts/:artifact_id`,
      summary: `One node artifact of one ${key.replace('_id', '')}`,
      async handle({ store }, req) {
        parseQuery(req.query, {});
        const id = positiveId(req.params[key], key, code);
        const artifactId = positiveId(req.params.artifact_id, 'artifact_id', 'UNKNOWN_ARTIFACT');
        return ok(req, await flow.artifactOf(store, { [key]: id } as never, artifactId));
      },
    },
  ];
}

export const flowApiRoutes: FlowApiRoute[] = [
  {
    method: 'POST',
    path: '/flowcharts',
    summary: 'Create a flowchart ({ name, description?, flowchart_id?, graph? })',
    async handle({ store }, req) {
      const body = (await req.readJson()) as flow.CreateFlowchartInput;
      if (typeof body !== 'object' || body === null || Array.isArray(body))
        throw invalidInput('the body is a JSON object');
      const item = await flow.createFlowchart(store, body);
      return ok(req, { flowchart_id: item.flowchart_id, item }, 201);
    },
  },
  {
    method: 'GET',
    path: '/flowcharts',
    summary: 'List flowcharts (limit, offset)',
    async handle({ store }, req) {
      return ok(req, await flow.listFlowcharts(store, page(parseQuery(req.query, PAGE))));
    },
  },
  {
    method: 'GET',
    path: '/flowcharts/:flowchart_id',
    summary: 'One flowchart',
    async handle({ store }, req) {
      parseQuery(req.query, {});
      const item = await flow.getFlowchart(store, req.params.flowchart_id!);
      return ok(req, { flowchart_id: item.flowchart_id, item });
    },
  },
  {
    method: 'DELETE',
    path: '/flowcharts/:flowchart_id',
    summary: 'Delete a flowchart and its graph (runs and artifacts stay)',
    async handle({ store }, req) {
      return ok(req, await flow.deleteFlowchart(store, req.params.flowchart_id!));
    },
  },
  {
    method: 'GET',
    path: '/flowcharts/:flowchart_id/graph',
    summary: 'The saved graph snapshot with its validation',
    async handle({ store }, req) {
      parseQuery(req.query, {});
      return ok(req, { ...(await flow.getGraph(store, req.params.flowchart_id!)) });
    },
  },
  {
    method: 'POST',
    path: '/flowcharts/:flowchart_id/graph',
    summary:
      'Save a graph snapshot: 400 for structural violations, 200 with validation.valid / validation.errors',
    async handle({ store }, req) {
      return ok(req, { ...(await flow.saveGraph(store, req.params.flowchart_id!, await req.readJson())) });
    },
  },
  {
    method: 'POST',
    path: '/flowcharts/:flowchart_id/runs',
    summary: 'Start a run ({ input? }); it executes in the background; answers { flowchart_run_id }',
    async handle(svc, req) {
      const body = ((await req.readJson()) ?? {}) as { input?: unknown };
      if (typeof body !== 'object' || Array.isArray(body)) throw invalidInput('the body is { input? }');
      const created = await flow.createFlowRun(svc.store, svc.engine, req.params.flowchart_id!, {
        ...(body.input !== undefined ? { input: body.input as never } : {}),
        request_id: req.request_id,
        correlation_id: req.correlation_id ?? null,
      });
      await svc.watchRun?.(created);
      svc.engine.continueRun(created.flowchart_run_id).catch((err) => svc.onBackgroundError?.(err));
      return ok(req, { flowchart_id: created.flowchart_id, flowchart_run_id: created.flowchart_run_id }, 202);
    },
  },
  {
    method: 'GET',
    path: '/flowcharts/:flowchart_id/runs',
    summary: 'Runs of a flowchart, newest first (limit, offset)',
    async handle({ store }, req) {
      const q = parseQuery(req.query, PAGE);
      await flow.getFlowchart(store, req.params.flowchart_id!);
      return ok(req, {
        flowchart_id: req.params.flowchart_id,
        ...(await flow.listFlowRuns(store, req.params.flowchart_id!, page(q))),
      });
    },
  },
  {
    method: 'GET',
    path: '/flowcharts/:flowchart_id/runs/:flowchart_run_id',
    summary:
      'A run with every node run (node_run_id, execution_index, status, output_state, routing_state, timings, error)',
    async handle({ store, engine }, req) {
      parseQuery(req.query, {});
      const item = await flow.getFlowRun(
        store,
        engine,
        req.params.flowchart_run_id!,
        req.params.flowchart_id!,
      );
      return ok(req, { flowchart_id: item.flowchart_id, flowchart_run_id: item.flowchart_run_id, item });
    },
  },
  {
    method: 'POST',
    path: '/flowcharts/:flowchart_id/runs/:flowchart_run_id/cancel',
    summary: 'Cancel a run that has not finished (409 INVALID_TRANSITION otherwise)',
    async handle({ store, engine }, req) {
      await flow.getFlowRun(store, engine, req.params.flowchart_run_id!, req.params.flowchart_id!);
      const item = await flow.cancelFlowRun(store, engine, req.params.flowchart_run_id!);
      return ok(req, { flowchart_id: item.flowchart_id, flowchart_run_id: item.flowchart_run_id, item });
    },
  },
  ...scopedArtifactRoutes('plans', 'plan_id', 'UNKNOWN_PLAN'),
  ...scopedArtifactRoutes('memories', 'memory_id', 'UNKNOWN_MEMORY'),
  ...scopedArtifactRoutes('milestones', 'milestone_id', 'UNKNOWN_MILESTONE'),
  {
    method: 'GET',
    path: '/flowcharts/:flowchart_id/nodes/:flowchart_node_id/decision-artifacts',
    summary: 'Decision artifacts of one decision node (newest first; limit, offset, flowchart_run_id)',
    async handle({ store }, req) {
      const q = parseQuery(req.query, { ...PAGE, flowchart_run_id: 'string' });
      return ok(
        req,
        await flow.decisionArtifacts(store, {
          flowchart_id: req.params.flowchart_id!,
          flowchart_node_id: req.params.flowchart_node_id!,
          ...(q.flowchart_run_id !== undefined ? { flowchart_run_id: q.flowchart_run_id as string } : {}),
          ...page(q),
        }),
      );
    },
  },
  {
    method: 'GET',
    path: '/flowcharts/:flowchart_id/nodes/:flowchart_node_id/decision-artifacts/:artifact_id',
    summary: 'One decision artifact of a decision node',
    async handle({ store }, req) {
      parseQuery(req.query, {});
      return ok(
        req,
        await flow.decisionArtifact(store, {
          flowchart_id: req.params.flowchart_id!,
          flowchart_node_id: req.params.flowchart_node_id!,
          artifact_id: positiveId(req.params.artifact_id, 'artifact_id', 'UNKNOWN_ARTIFACT'),
        }),
      );
    },
  },
  {
    method: 'GET',
    path: '/memories/:memory_id',
    summary: 'One long-term memory',
    async handle({ store }, req) {
      parseQuery(req.query, {});
      return ok(req, {
        ...(await flow.memoryView(store, positiveId(req.params.memory_id, 'memory_id', 'UNKNOWN_MEMORY'))),
      });
    },
  },
  {
    method: 'GET',
    path: '/plans/:plan_id',
    summary: 'One plan (stages and tasks)',
    async handle({ store }, req) {
      parseQuery(req.query, {});
      return ok(req, {
        ...(await flow.planView(store, positiveId(req.params.plan_id, 'plan_id', 'UNKNOWN_PLAN'))),
      });
    },
  },
  {
    method: 'GET',
    path: '/milestones/:milestone_id',
    summary: 'One milestone',
    async handle({ store }, req) {
      parseQuery(req.query, {});
      return ok(req, {
        ...(await flow.milestoneView(
          store,
          positiveId(req.params.milestone_id, 'milestone_id', 'UNKNOWN_MILESTONE'),
        )),
      });
    },
  },
];

/** Matches `method path` (path under `/api`) to a route and its parameters; null when none. */
export function matchFlowApi(
  method: string,
  path: string,
): { route: FlowApiRoute; params: Record<string, string> } | null {
  const parts = path.split('/').filter(Boolean);
  let methodMismatch = false;
  for (const route of flowApiRoutes) {
    const segs = route.path.split('/').filter(Boolean);
    if (segs.length !== parts.length) continue;
    const params: Record<string, string> = {};
    let hit = true;
    for (let i = 0; i < segs.length; i++) {
      const s = segs[i]!;
      if (s.startsWith(':')) {
        try {
          params[s.slice(1)] = decodeURIComponent(parts[i]!);
        } catch {
          hit = false;
        }
      } else if (s !== parts[i]) hit = false;
      if (!hit) break;
    }
    if (!hit) continue;
    if (route.method !== method) {
      methodMismatch = true;
      continue;
    }
    return { route, params };
  }
  if (methodMismatch)
    throw new NoemaError('METHOD_NOT_ALLOWED', `${method} is not allowed on /api${path}`, { status: 405 });
  return null;
}

/**
 * Dispatches one request (path under `/api`, with its query string) to its route, answering the
 * seed's success shape or the error envelope; null when no route matches the path.
 */
export async function dispatchFlowApi(
  svc: FlowServices,
  req: { method: string; path: string; body?: unknown; request_id: string; correlation_id?: string },
): Promise<FlowApiReply | null> {
  const url = new URL(req.path, 'http://api.invalid');
  const ids = { request_id: req.request_id, correlation_id: req.correlation_id };
  try {
    const m = matchFlowApi(req.method, url.pathname);
    if (!m) return null;
    return await m.route.handle(svc, {
      params: m.params,
      query: url.searchParams,
      readJson: async () => req.body,
      ...ids,
    });
  } catch (err) {
    return flowApiError(err, ids);
  }
}
