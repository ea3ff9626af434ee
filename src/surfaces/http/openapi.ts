/**
 * `/openapi.json`, generated from the route descriptors (the catalog's routes document their
 * filters, pagination and budget parameters; POST routes their body schemas). Never hand-written.
 */
import type { Route } from './route.ts';

const ENVELOPE = {
  type: 'object',
  required: ['code', 'message', 'details', 'request_id'],
  properties: {
    code: { type: 'string' },
    message: { type: 'string' },
    details: { type: 'object' },
    request_id: { type: 'string' },
    correlation_id: { type: 'string' },
    hint: { type: 'string' },
  },
};

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
});

export function openApiDocument(routes: readonly Route[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    if (route.internal || route.method === 'ANY') continue;
    const path = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const op: Record<string, unknown> = {
      operationId: `${route.method.toLowerCase()}${route.path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, ch: string | undefined) => (ch ?? '').toUpperCase())}`,
      summary: route.summary ?? '',
      parameters: (route.params ?? []).map((p) => ({
        name: p.name,
        in: p.in,
        required: p.in === 'path' ? true : (p.required ?? false),
        schema: p.schema,
        ...(p.description ? { description: p.description } : {}),
      })),
      responses: {
        '200': { description: 'OK', content: { 'application/json': { schema: { type: 'object' } } } },
        '400': errorResponse('Invalid input'),
        ...(route.public ? {} : { '401': errorResponse('Missing or wrong token') }),
        '404': errorResponse('Not found'),
        '503': errorResponse('Store unavailable'),
      },
      ...(route.public ? { security: [] } : {}),
    };
    if (route.body !== undefined) {
      op.requestBody = { required: true, content: { 'application/json': { schema: route.body } } };
      (op.responses as Record<string, unknown>)['413'] = errorResponse('Body over 4 MiB');
    }
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: op };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Noema', version: '0.1.0' },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: { ErrorEnvelope: ENVELOPE },
    },
  };
}
