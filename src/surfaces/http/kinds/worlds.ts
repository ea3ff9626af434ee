/**
 * The world runtime in the catalog (seed 004): its content-addressed components (with `uses`
 * answered from their reference edges), worlds and attempts, each linking structurally to what
 * it references.
 */
import {
  type ComponentKind,
  getAttempt,
  getComponent,
  getWorld,
  listAllAttempts,
  listComponents,
  listWorlds,
} from '../../../runtimes/world/index.ts';
import { llmUsageSum } from '../../../sources/index.ts';
import { registerKind } from '../catalog/index.ts';
import type { LinkRule } from '../catalog/kind.ts';

const HASH_FILTER = {
  type: 'string',
  maxLength: 64,
  description: 'Components that reference this hash.',
} as const;

function componentKind(
  kind: string,
  component: ComponentKind,
  title: string,
  refersTo: string[],
  extra: (content: Record<string, unknown>) => Record<string, unknown> = () => ({}),
) {
  // `references` is never a field of a record: the rules exist for the targets' /uses pages.
  const uses: LinkRule[] = refersTo.map((target) => ({ field: 'references', kind: target, filter: 'uses' }));
  registerKind({
    kind,
    title,
    key: { by: 'hash', field: 'hash' },
    filters: { uses: HASH_FILTER },
    async list({ store }, { filters, limit, cursor }) {
      const page = await listComponents(store, {
        kind: component,
        limit,
        ...(cursor !== undefined ? { cursor } : {}),
        ...(typeof filters.uses === 'string' ? { uses: filters.uses } : {}),
      });
      return { items: page.items as unknown as Record<string, unknown>[], next_cursor: page.next_cursor };
    },
    cursorOf: (item) => `${item.created_at}:${item.hash}`,
    async get({ store }, hash) {
      const c = await getComponent(store, hash, component);
      return { ...c, ...extra(c.content as Record<string, unknown>) };
    },
    links: [...uses, { field: 'workflow_hash', kind: 'cognition-workflows', rel: 'workflow' }],
    columns: ['hash', 'label', 'created_at'],
  });
}

componentKind('cognition-workflows', 'cognition_workflow', 'Cognition workflows', [
  'response-sources',
  'json-schemas',
]);
componentKind(
  'cognition-profiles',
  'cognition_profile',
  'Cognition profiles',
  ['cognition-workflows'],
  (c) => ({
    workflow_hash: (c.workflow_ref as { hash?: string } | undefined)?.hash ?? null,
  }),
);
componentKind('environments', 'environment', 'Environments', []);
componentKind('entities', 'entity', 'Entities', []);
componentKind('scenarios', 'scenario', 'Scenarios', ['cognition-profiles', 'environments', 'entities']);

registerKind({
  kind: 'worlds',
  title: 'Worlds',
  description: 'Worlds and their latest committed turn',
  key: { by: 'id', param: 'world_slug' },
  filters: { scenario_hash: { type: 'string', maxLength: 64, aliases: ['scenario'] } },
  async list({ store }, { filters, limit, cursor }) {
    const page = await listWorlds(store, {
      limit,
      ...(cursor !== undefined ? { cursor } : {}),
      ...(filters.scenario_hash ? { scenario_hash: String(filters.scenario_hash) } : {}),
    });
    return { items: page.items as unknown as Record<string, unknown>[], next_cursor: page.next_cursor };
  },
  cursorOf: (w) => `${w.created_at}:${w.world_slug}`,
  get: async ({ store }, slug) => ({ ...(await getWorld(store, { world_slug: slug })) }),
  links: [
    { field: 'scenario_hash', kind: 'scenarios', rel: 'scenario' },
    { field: 'parent_world_slug', kind: 'worlds', rel: 'forked_from' },
    { rel: 'attempts', href: (w) => `/attempts?world_slug=${encodeURIComponent(String(w.world_slug))}` },
    {
      rel: 'turn',
      href: (w) =>
        w.turn === undefined ? null : `/worlds/${encodeURIComponent(String(w.world_slug))}/turns/${w.turn}`,
    },
  ],
  columns: ['world_slug', 'head_turn', 'scenario_hash', 'created_at'],
});

registerKind({
  kind: 'attempts',
  title: 'Attempts',
  description: 'Each try of a turn: status, patches with transitions, source invocations',
  key: { by: 'id', param: 'attempt_id' },
  filters: {
    world_slug: { type: 'string', maxLength: 128, aliases: ['world'] },
    status: { type: 'enum', values: ['running', 'committed', 'failed', 'interrupted'] },
  },
  async list({ store }, { filters, limit, cursor }) {
    const page = await listAllAttempts(store, {
      limit,
      ...(cursor !== undefined ? { cursor } : {}),
      ...(filters as { world_slug?: string; status?: string }),
    });
    return { items: page.items as unknown as Record<string, unknown>[], next_cursor: page.next_cursor };
  },
  cursorOf: (a) => `${a.started_at}:${a.attempt_id}`,
  get: async ({ store }, id) => ({
    ...(await getAttempt(store, { attempt_id: id })),
    usage: await llmUsageSum(store, { attempt_id: id }),
  }),
  links: [
    { field: 'world_slug', kind: 'worlds', rel: 'world' },
    { field: 'scenario_hash', kind: 'scenarios', rel: 'scenario' },
    { field: 'last_source_invocation_id', kind: 'source-invocations', rel: 'last_source_invocation' },
    {
      rel: 'source_invocations',
      href: (a) => `/attempts/${encodeURIComponent(String(a.attempt_id))}/source-invocations`,
    },
  ],
  columns: ['attempt_id', 'world_slug', 'attempted_turn', 'status', 'source_invocation_count', 'started_at'],
});
