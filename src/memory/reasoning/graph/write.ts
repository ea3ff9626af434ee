/**
 * The one graph write primitive: appends a batch of versions to a branch inside a transaction,
 * each with its own seq from the global counter, and moves each key's `is_head` marker (the
 * superseded version records `next_seq`, so "newest up to a cutoff" needs no anti-join).
 */
import type { SqlValue, Transaction } from '../../../store/store.ts';
import { allocateSeq } from '../seq.ts';
import { encodeTags, searchText } from './rows.ts';
import type { EdgeContent, GraphScope, NodeContent, VersionOrigin } from './types.ts';
import { placeholders } from './view.ts';

export type VersionWrite =
  | { kind: 'node'; content: NodeContent; origin?: VersionOrigin }
  | { kind: 'edge'; content: EdgeContent; origin?: VersionOrigin };

export interface WriteResult {
  first_seq: number;
  last_seq: number;
  ts_ms: number;
}

const CHUNK = 100;

/**
 * Writes `writes` in order (seq increasing along the list). Allocating the seqs first also
 * serializes concurrent writers on PostgreSQL, so the head flip below never races.
 */
export async function writeVersions(
  tx: Transaction,
  scope: GraphScope,
  branch: string,
  writes: readonly VersionWrite[],
): Promise<WriteResult> {
  const first = await allocateSeq(tx, scope.workspace, writes.length);
  const ts = Date.now();
  const nodes: Array<{ c: NodeContent; seq: number; origin: VersionOrigin }> = [];
  const edges: Array<{ c: EdgeContent; seq: number; origin: VersionOrigin }> = [];
  writes.forEach((w, i) => {
    if (w.kind === 'node') nodes.push({ c: w.content, seq: first + i, origin: w.origin ?? null });
    else edges.push({ c: w.content, seq: first + i, origin: w.origin ?? null });
  });
  await writeNodes(tx, scope, branch, nodes, ts);
  await writeEdges(tx, scope, branch, edges, ts);
  return { first_seq: first, last_seq: first + writes.length - 1, ts_ms: ts };
}

/**
 * Version chaining within one batch: the last write of each key becomes its head, the old head's
 * `next_seq` is the key's first new seq, and each earlier write in the batch points to the next.
 */
function chain(rows: Array<{ key: string; seq: number }>) {
  const lastIndex = new Map<string, number>();
  const firstSeq = new Map<string, number>();
  const nextSeq: Array<number | undefined> = new Array(rows.length);
  rows.forEach((r, i) => {
    const prev = lastIndex.get(r.key);
    if (prev !== undefined) nextSeq[prev] = r.seq;
    else firstSeq.set(r.key, r.seq);
    lastIndex.set(r.key, i);
  });
  return { lastIndex, firstSeq, nextSeq };
}

async function writeNodes(
  tx: Transaction,
  scope: GraphScope,
  branch: string,
  rows: Array<{ c: NodeContent; seq: number; origin: VersionOrigin }>,
  ts: number,
): Promise<void> {
  if (rows.length === 0) return;
  const { lastIndex, firstSeq, nextSeq } = chain(rows.map((r) => ({ key: r.c.id, seq: r.seq })));
  const ids = [...lastIndex.keys()];
  for (let i = 0; i < ids.length; i += CHUNK) {
    const part = ids.slice(i, i + CHUNK);
    await tx.run(
      `UPDATE graph_nodes SET is_head = 0, next_seq = CASE node_id ${part.map(() => 'WHEN ? THEN CAST(? AS BIGINT)').join(' ')} END
       WHERE workspace = ? AND branch = ? AND doc = ? AND node_id IN (${placeholders(part.length)}) AND is_head = 1`,
      [...part.flatMap((id) => [id, firstSeq.get(id)!]), scope.workspace, branch, scope.doc, ...part],
    );
  }
  for (let i = 0; i < rows.length; i += CHUNK) {
    const part = rows.slice(i, i + CHUNK);
    const params: SqlValue[] = [];
    for (const [j, r] of part.entries()) {
      const c = r.c;
      params.push(
        scope.workspace,
        branch,
        scope.doc,
        c.id,
        r.seq,
        ts,
        c.type,
        c.title ?? null,
        c.text ?? null,
        c.status ?? null,
        encodeTags(c.tags),
        c.meta === undefined ? null : JSON.stringify(c.meta),
        c.deleted ? 1 : 0,
        lastIndex.get(c.id) === i + j ? 1 : 0,
        nextSeq[i + j] ?? null,
        searchText(c),
        r.origin,
      );
    }
    await tx.run(
      `INSERT INTO graph_nodes (workspace, branch, doc, node_id, seq, ts_ms, type, title, text, status, tags, meta,
         deleted, is_head, next_seq, search, origin) VALUES ${part.map(() => `(${placeholders(17)})`).join(', ')}`,
      params,
    );
  }
}

async function writeEdges(
  tx: Transaction,
  scope: GraphScope,
  branch: string,
  rows: Array<{ c: EdgeContent; seq: number; origin: VersionOrigin }>,
  ts: number,
): Promise<void> {
  if (rows.length === 0) return;
  const keyOf = (c: EdgeContent) => `${c.from}\u0000${c.rel}\u0000${c.to}`;
  const { lastIndex, firstSeq, nextSeq } = chain(rows.map((r) => ({ key: keyOf(r.c), seq: r.seq })));
  const keys = [...new Map(rows.map((r) => [keyOf(r.c), r.c])).values()];
  const match = '(from_id = ? AND rel = ? AND to_id = ?)';
  for (let i = 0; i < keys.length; i += CHUNK) {
    const part = keys.slice(i, i + CHUNK);
    const keyParams = part.flatMap((k) => [k.from, k.rel, k.to]);
    await tx.run(
      `UPDATE graph_edges SET is_head = 0, next_seq = CASE ${part.map(() => `WHEN ${match} THEN CAST(? AS BIGINT)`).join(' ')} END
       WHERE workspace = ? AND branch = ? AND doc = ? AND is_head = 1 AND (${part.map(() => match).join(' OR ')})`,
      [
        ...part.flatMap((k) => [k.from, k.rel, k.to, firstSeq.get(keyOf(k))!]),
        scope.workspace,
        branch,
        scope.doc,
        ...keyParams,
      ],
    );
  }
  for (let i = 0; i < rows.length; i += CHUNK) {
    const part = rows.slice(i, i + CHUNK);
    const params: SqlValue[] = [];
    for (const [j, r] of part.entries()) {
      const c = r.c;
      params.push(
        scope.workspace,
        branch,
        scope.doc,
        c.from,
        c.rel,
        c.to,
        r.seq,
        ts,
        c.meta === undefined ? null : JSON.stringify(c.meta),
        c.deleted ? 1 : 0,
        lastIndex.get(keyOf(c)) === i + j ? 1 : 0,
        nextSeq[i + j] ?? null,
        r.origin,
      );
    }
    await tx.run(
      `INSERT INTO graph_edges (workspace, branch, doc, from_id, rel, to_id, seq, ts_ms, meta, deleted, is_head, next_seq, origin)
       VALUES ${part.map(() => `(${placeholders(13)})`).join(', ')}`,
      params,
    );
  }
}
