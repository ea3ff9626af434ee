/** MCP tools over the reasoning graph: apply/query/validate/diff, merge-back and its conflicts. */
import {
  graphApply,
  graphConflictResolve,
  graphConflictShow,
  graphConflicts,
  graphDiff,
  graphMerge,
  graphQuery,
  graphValidate,
  MAX_OPS,
} from '../../../memory/index.ts';
import type { McpToolDef } from '../tool.ts';
import { branchName, cursor, doc, limit, maxChars, objectSchema, target, workspace } from './schema-parts.ts';

// Handlers receive schema-validated input; domain functions re-validate values the schema cannot express.
type In = Record<string, unknown>;
const as = <T>(input: In): T => input as T;
const out = <T>(p: Promise<T>): Promise<In> => p as unknown as Promise<In>;

const nodeId = (description: string) =>
  ({ type: 'string', minLength: 1, maxLength: 256, description }) as const;
const label = (description: string) =>
  ({ type: 'string', minLength: 1, maxLength: 64, description }) as const;
const tags = (description: string) =>
  ({
    type: 'array',
    maxItems: 32,
    items: { type: 'string', minLength: 1, maxLength: 64 },
    description,
  }) as const;

const refFields = {
  workspace,
  target,
  branch: branchName('Branch of the graph document (default: the workspace checkout). Not with target.'),
  doc: doc(
    'Graph document name, e.g. "graph". Not with target (a target uses its graph_doc, e.g. "TASK-001-graph").',
  ),
};

const op = {
  type: 'object',
  required: ['op'],
  additionalProperties: false,
  description:
    'One operation. node_upsert needs id and type; node_delete needs id; edge_upsert/edge_delete need from, rel, to. Fields that do not belong to the op are rejected.',
  properties: {
    op: {
      type: 'string',
      enum: ['node_upsert', 'node_delete', 'edge_upsert', 'edge_delete'],
      description:
        'node_upsert writes a new node version; node_delete writes a tombstone; edge_* the same for edges.',
    },
    id: nodeId(
      'Node id (node ops). Stable, no control characters; the prefixes "task:" and "step:" are reserved.',
    ),
    type: label('Node type (node_upsert), e.g. "hypothesis". No control characters, no "|".'),
    title: { type: 'string', maxLength: 1000, description: 'Node title (node_upsert).' },
    text: { type: 'string', maxLength: 20_000, description: 'Node body text (node_upsert).' },
    status: label('Node status (node_upsert), e.g. "open".'),
    tags: tags('Node tags (node_upsert); stored lowercased, deduplicated and sorted.'),
    meta: {
      type: 'object',
      description: 'Extra JSON facts (node_upsert, edge_upsert); at most 20000 chars serialized.',
    },
    from: nodeId('Edge source node id (edge ops).'),
    rel: label('Edge relation (edge ops), e.g. "supports". No control characters, no "|".'),
    to: nodeId('Edge target node id (edge ops).'),
  },
} as const;

export const graphTools: McpToolDef[] = [
  {
    name: 'branchmind_graph_apply',
    description:
      'Applies a batch of typed graph operations to a target graph doc or an explicit (branch, doc). Atomic: every op is validated first and one invalid op applies nothing. Each op writes a new version with a monotonic seq; deletes are tombstones.',
    inputSchema: objectSchema(
      {
        ...refFields,
        ops: {
          type: 'array',
          minItems: 1,
          maxItems: MAX_OPS,
          items: op,
          description: `Operations, applied in order (1–${MAX_OPS}).`,
        },
      },
      ['workspace', 'ops'],
    ),
    handler: (input, { store }) => out(graphApply(store, as(input))),
  },
  {
    name: 'branchmind_graph_query',
    description:
      'Bounded slice of the effective graph view (latest version per key across the branch and its base snapshot), nodes newest first (last_seq DESC), with the edges among the returned nodes. Paginate with cursor = next_cursor (last_seq < cursor).',
    inputSchema: objectSchema(
      {
        ...refFields,
        ids: {
          type: 'array',
          minItems: 1,
          maxItems: 200,
          items: nodeId('A node id.'),
          description: 'Only these node ids.',
        },
        types: {
          type: 'array',
          minItems: 1,
          maxItems: 50,
          items: label('A node type.'),
          description: 'Only nodes of these types.',
        },
        status: label('Only nodes with this status.'),
        tags_any: tags('Only nodes having at least one of these tags (case-insensitive).'),
        tags_all: tags('Only nodes having all of these tags (case-insensitive).'),
        text: {
          type: 'string',
          minLength: 1,
          maxLength: 256,
          description: 'Case-insensitive substring of id, title or text.',
        },
        cursor: {
          ...cursor,
          description: 'Tail pagination: nodes with last_seq < cursor. Omit for the newest.',
        },
        limit: limit(50, 500, 'nodes'),
        include_edges: {
          type: 'boolean',
          description: 'Return edges between the returned nodes (default true).',
        },
        edges_limit: {
          type: 'integer',
          minimum: 0,
          maximum: 2000,
          description: 'Most edges to return (default 200); more sets truncated.',
        },
        max_chars: maxChars,
      },
      ['workspace'],
    ),
    handler: (input, { store }) => out(graphQuery(store, as(input))),
  },
  {
    name: 'branchmind_graph_validate',
    description:
      'Checks invariants of the effective graph view: every live edge endpoint must be a live node. Returns stats and at most max_errors errors (truncated when there were more).',
    inputSchema: objectSchema(
      {
        ...refFields,
        max_errors: {
          type: 'integer',
          minimum: 1,
          maximum: 1000,
          description: 'Most errors to report (default 50).',
        },
        max_chars: maxChars,
      },
      ['workspace'],
    ),
    handler: (input, { store }) => out(graphValidate(store, as(input))),
  },
  {
    name: 'branchmind_graph_diff',
    description:
      'Directional diff of one graph doc: node/edge states of `to` that differ from `from`, tombstones included (a deletion shows as to.deleted=true), ordered by to.last_seq DESC. Reverse the arguments for the other direction.',
    inputSchema: objectSchema(
      {
        workspace,
        from: branchName('The branch compared against.'),
        to: branchName('The branch whose differing states are listed.'),
        doc: doc('Graph document (default "graph").'),
        cursor: { ...cursor, description: 'Tail pagination: changes with to.last_seq < cursor.' },
        limit: limit(50, 500, 'changes'),
        max_chars: maxChars,
      },
      ['workspace', 'from', 'to'],
    ),
    handler: (input, { store }) => out(graphDiff(store, as(input))),
  },
  {
    name: 'branchmind_graph_merge',
    description:
      'Merges graph changes of a derived branch back into its base (only into from.base_branch, else MERGE_NOT_SUPPORTED). Keys changed on `from` since branching are applied unless `into` changed them differently since the base snapshot: those become conflict entities and are skipped. Deterministic and idempotent; dry_run only discovers. If has_more, call again with cursor=next_cursor.',
    inputSchema: objectSchema(
      {
        workspace,
        from: branchName('The derived branch whose changes are merged.'),
        into: branchName('Its base branch.'),
        doc: doc('Graph document (default "graph").'),
        cursor: { ...cursor, description: 'Continue after a page: changed keys with seq < cursor.' },
        limit: limit(200, 1000, 'changed keys per call'),
        dry_run: { type: 'boolean', description: 'Discover outcomes only; write nothing (default false).' },
      },
      ['workspace', 'from', 'into'],
    ),
    handler: (input, { store }) => out(graphMerge(store, as(input))),
  },
  {
    name: 'branchmind_graph_conflicts',
    description: 'Lists graph merge conflicts recorded for a destination branch and doc, newest first.',
    inputSchema: objectSchema(
      {
        workspace,
        into: branchName('The merge destination branch.'),
        doc: doc('Graph document (default "graph").'),
        status: { type: 'string', enum: ['open', 'resolved'], description: 'Only conflicts in this status.' },
        cursor: { ...cursor, description: 'Continue with next_cursor from the previous page.' },
        limit: limit(50, 500, 'conflicts'),
        max_chars: maxChars,
      },
      ['workspace', 'into'],
    ),
    handler: (input, { store }) => out(graphConflicts(store, as(input))),
  },
  {
    name: 'branchmind_graph_conflict_show',
    description:
      'Shows one conflict with its snapshots: base (into at the branch point), theirs (from), ours (into at merge time); null means absent.',
    inputSchema: objectSchema(
      {
        workspace,
        conflict_id: {
          type: 'string',
          minLength: 1,
          maxLength: 128,
          description: 'A conflict_id from graph_merge or graph_conflicts.',
        },
        max_chars: maxChars,
      },
      ['workspace', 'conflict_id'],
    ),
    handler: (input, { store }) => out(graphConflictShow(store, as(input))),
  },
  {
    name: 'branchmind_graph_conflict_resolve',
    description:
      'Resolves a conflict: use_from writes the from snapshot into `into` as a new version; use_into keeps the destination state. Both mark it resolved; resolving again changes nothing.',
    inputSchema: objectSchema(
      {
        workspace,
        conflict_id: {
          type: 'string',
          minLength: 1,
          maxLength: 128,
          description: 'The conflict to resolve.',
        },
        resolution: { type: 'string', enum: ['use_from', 'use_into'], description: 'Which side wins.' },
      },
      ['workspace', 'conflict_id', 'resolution'],
    ),
    handler: (input, { store }) => out(graphConflictResolve(store, as(input))),
  },
];
