/**
 * Bulk loaders for the reasoning-memory benchmark: multi-row INSERTs inside large transactions,
 * writing exactly the rows the real write paths write (so reads see a normal store), fast.
 */
import { DEFAULT_BRANCH } from '../../src/memory/reasoning/workspaces.ts';
import type { SqlValue, Store } from '../../src/store/store.ts';

const ROWS_PER_STATEMENT = 500;
const ROWS_PER_TX = 50_000;

async function bulkInsert(
  store: Store,
  table: string,
  columns: string[],
  count: number,
  row: (i: number) => SqlValue[],
) {
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  for (let start = 0; start < count; start += ROWS_PER_TX) {
    const end = Math.min(count, start + ROWS_PER_TX);
    await store.transaction(async (tx) => {
      for (let s = start; s < end; s += ROWS_PER_STATEMENT) {
        const n = Math.min(ROWS_PER_STATEMENT, end - s);
        const params: SqlValue[] = [];
        for (let i = s; i < s + n; i++) params.push(...row(i));
        await tx.run(
          `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${new Array(n).fill(tuple).join(', ')}`,
          params,
        );
      }
    });
  }
}

export async function initWorkspace(store: Store, workspace: string): Promise<void> {
  await store.transaction(async (tx) => {
    await tx.run(
      'INSERT INTO reasoning_workspaces (workspace, checkout, created_at_ms) VALUES (?, ?, ?) ON CONFLICT (workspace) DO NOTHING',
      [workspace, DEFAULT_BRANCH, Date.now()],
    );
    await tx.run(
      `INSERT INTO reasoning_branches (workspace, name, base_branch, base_seq, created_at_ms) VALUES (?, ?, NULL, NULL, ?)
       ON CONFLICT (workspace, name) DO NOTHING`,
      [workspace, DEFAULT_BRANCH, Date.now()],
    );
  });
}

async function currentSeq(store: Store): Promise<number> {
  return Number(
    (await store.get<{ v: number }>('SELECT value AS v FROM reasoning_seq WHERE id = 1'))?.v ?? 0,
  );
}

async function setSeq(store: Store, value: number): Promise<void> {
  await store.run('UPDATE reasoning_seq SET value = ? WHERE id = 1', [value]);
  // Workspaces' blocks predate the loaded rows: drop them, so each takes its next block past these.
  await store.run('DELETE FROM reasoning_workspace_seq');
}

/** Appends `count` note entries to (branch, doc), with seqs continuing the global counter. */
export async function loadEntries(
  store: Store,
  workspace: string,
  branch: string,
  doc: string,
  count: number,
): Promise<void> {
  const first = (await currentSeq(store)) + 1;
  const ts = Date.now();
  await bulkInsert(
    store,
    'doc_entries',
    [
      'seq',
      'ts',
      'workspace',
      'branch',
      'doc',
      'kind',
      'title',
      'format',
      'meta',
      'content',
      'source_event_id',
      'origin_seq',
    ],
    count,
    (i) => [
      first + i,
      ts,
      workspace,
      branch,
      doc,
      'note',
      null,
      null,
      null,
      `note ${first + i}: a decision with its rationale`,
      null,
      first + i,
    ],
  );
  await setSeq(store, first + count - 1);
}

export async function createBranch(
  store: Store,
  workspace: string,
  name: string,
  from: string,
): Promise<void> {
  await store.run(
    'INSERT INTO reasoning_branches (workspace, name, base_branch, base_seq, created_at_ms) VALUES (?, ?, ?, ?, ?)',
    [workspace, name, from, await currentSeq(store), Date.now()],
  );
}

/** `count` live head node versions on (branch, doc): ids `n<i>`, a few types and tags, searchable text. */
export async function loadNodes(
  store: Store,
  workspace: string,
  branch: string,
  doc: string,
  count: number,
): Promise<void> {
  const first = (await currentSeq(store)) + 1;
  const ts = Date.now();
  const types = ['hypothesis', 'question', 'evidence', 'note'];
  await bulkInsert(
    store,
    'graph_nodes',
    [
      'workspace',
      'branch',
      'doc',
      'node_id',
      'seq',
      'ts_ms',
      'type',
      'title',
      'text',
      'status',
      'tags',
      'meta',
      'deleted',
      'is_head',
      'search',
      'origin',
    ],
    count,
    (i) => {
      const id = `n${i}`;
      const title = `node ${i}`;
      const text = `observation number ${i} about topic-${i % 100}`;
      return [
        workspace,
        branch,
        doc,
        id,
        first + i,
        ts,
        types[i % 4]!,
        title,
        text,
        i % 3 === 0 ? 'open' : 'done',
        `|t${i % 10}|`,
        null,
        0,
        1,
        `${id}\n${title}\n${text}`.toLowerCase(),
        null,
      ];
    },
  );
  await setSeq(store, first + count - 1);
}
