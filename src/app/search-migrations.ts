/**
 * Full-text search across what was said (ids 810–819): the prompts and answers of LLM calls, the
 * messages of agent sessions and the narrations of world patches, copied by row triggers into one
 * table indexed by the store's full-text primitive, so writers need nothing special.
 */
import type { Dialect, Migration, RowTrigger } from '../store/index.ts';

/**
 * Characters of each text that are searchable: all of a shorter one; of a longer one its first and
 * last half, joined by ` … ` — a long prompt's start (its instructions) and its end (the newest
 * messages of a conversation and their tool results, which no earlier prompt held).
 */
export const SEARCH_TEXT_CHARS = 20_000;
const HALF = SEARCH_TEXT_CHARS / 2;

/** JSON text with its `\n` escapes as spaces, so a word after a line break is a word. */
const spaced = (expr: string) => `replace(${expr}, '\\n', ' ')`;

/** How a text is cut for its copy: an SQL expression over the text's expression. */
type Cut = (expr: string) => string;

/** The searchable part of `expr` (see SEARCH_TEXT_CHARS), in SQL both stores run (migration 814). */
const firstAndLastHalf: Cut = (expr) =>
  `CASE WHEN length(${expr}) > ${SEARCH_TEXT_CHARS} THEN ${spaced(`substr(${expr}, 1, ${HALF})`)} || ' … ' || ${spaced(`substr(${expr}, length(${expr}) - ${HALF - 1})`)} ELSE ${spaced(expr)} END`;

/** The searchable part until migration 814: the first SEARCH_TEXT_CHARS characters. */
const firstChars: Cut = (expr) => `substr(${spaced(expr)}, 1, ${SEARCH_TEXT_CHARS})`;

type Copy = Omit<RowTrigger, 'into'> & { from: string };

/** The copies' row triggers, as `rowTriggerDdl` takes them, each text cut by `cut`. */
const copyTriggers = (cut: Cut): RowTrigger[] =>
  copies(cut).map(({ from: _f, ...c }) => ({ ...c, into: 'search_texts' }));

const copies = (cut: Cut): Copy[] => [
  {
    name: 'search_texts_prompt',
    table: 'source_invocations',
    on: 'insert',
    when: 'NEW.llm_call_id IS NOT NULL',
    from: 'llm_call_id IS NOT NULL',
    values: {
      kind: `'prompt'`,
      ref_id: 'NEW.llm_call_id',
      ref_seq: 'NEW.attempted_turn',
      context: 'NEW.world_slug',
      text: cut('NEW.request_json'),
      at: 'NEW.started_at',
    },
  },
  {
    name: 'search_texts_answer',
    table: 'source_invocations',
    on: 'update',
    when: 'NEW.llm_call_id IS NOT NULL AND NEW.response_text IS NOT NULL AND OLD.response_text IS NULL',
    from: 'llm_call_id IS NOT NULL AND response_text IS NOT NULL',
    values: {
      kind: `'answer'`,
      ref_id: 'NEW.llm_call_id',
      ref_seq: 'NEW.attempted_turn',
      context: 'NEW.world_slug',
      text: cut('NEW.response_text'),
      at: 'COALESCE(NEW.ended_at, NEW.started_at)',
    },
  },
  {
    name: 'search_texts_message',
    table: 'agent_session_messages',
    on: 'insert',
    from: '1 = 1',
    values: {
      kind: `'message'`,
      ref_id: 'NEW.session_id',
      ref_seq: 'NEW.seq',
      context: 'NEW.role',
      text: cut('NEW.content'),
      at: 'NEW.at',
    },
  },
  {
    name: 'search_texts_narration',
    table: 'world_patches',
    on: 'insert',
    from: '1 = 1',
    values: {
      kind: `'narration'`,
      ref_id: 'NEW.world_slug',
      ref_seq: 'NEW.turn',
      context: 'NEW.subject_entity_id',
      text: cut('NEW.narration'),
      at: 'NULL',
    },
  },
];

/** The rows already written, copied as the trigger would have (oldest first, so ids grow with time). */
const backfill = (c: Copy): string => {
  const cols = Object.keys(c.values);
  const exprs = Object.values(c.values).map((e) => e.replaceAll('NEW.', 'r.').replaceAll('OLD.', 'r.'));
  return `INSERT INTO search_texts (${cols.join(', ')}) SELECT ${exprs.join(', ')} FROM ${c.table} r WHERE ${c.from.replace(/(\w+) IS/g, 'r.$1 IS')}`;
};

const SEARCH_COLUMNS = 'search_id, kind, ref_id, ref_seq, context, text, at';

const searchTextsDdl = (table: string, id: string, d: Dialect) => `CREATE TABLE ${table} (
  search_id ${id},
  kind TEXT NOT NULL,
  ref_id TEXT NOT NULL,
  ref_seq ${d.bigint},
  context TEXT,
  text TEXT NOT NULL,
  at ${d.bigint}
)`;

export const searchMigrations: readonly Migration[] = [
  {
    id: 810,
    name: 'search_texts',
    up: (d: Dialect) => [
      searchTextsDdl('search_texts', d.autoId, d),
      ...copies(firstChars).map(backfill),
      ...copyTriggers(firstChars).flatMap((t) => d.rowTriggerDdl(t)),
      ...d.fullText.indexDdl('search_texts', 'search_id', 'text', ['kind']),
    ],
  },
  {
    // The copies are written inside the commits of LLM calls, agent messages and world patches:
    // where indexing costs a commit far more than the row, it is done in batches and by the reader
    // (`catchUpSql`) instead. A rebuild from the rows, where it changes anything (SQLite; PostgreSQL's
    // deferred index came with migration 813, and a new database builds it here first).
    id: 811,
    name: 'search_texts_deferred_index',
    up: (d: Dialect) =>
      d.fullText.defersIndexing
        ? [
            ...d.fullText.dropIndexDdl('search_texts', 'text'),
            ...d.fullText.indexDdl('search_texts', 'search_id', 'text', ['kind'], { deferred: true }),
          ]
        : [],
  },
  {
    // Each copy commits with an LLM call's running row or finish: where the store's monotonic id
    // writes a sequence row with every insert (SQLite's AUTOINCREMENT: `sqlite_sequence`, a page of
    // its own in each of those commits, about a fifth of a traced call's time), the table is rebuilt
    // with a plain integer key. Its ids still only grow: one above the highest present, and no
    // search row is ever deleted. Where the two are the same type (PostgreSQL's sequence), nothing.
    id: 812,
    name: 'search_texts_plain_id',
    up: (d: Dialect) => {
      if (d.growingId === d.autoId) return [];
      const triggers = copyTriggers(firstChars);
      return [
        ...triggers.flatMap((t) => d.dropRowTriggerDdl(t.name, t.table)),
        ...d.fullText.dropIndexDdl('search_texts', 'text'),
        searchTextsDdl('search_texts_rebuilt', d.growingId, d),
        `INSERT INTO search_texts_rebuilt (${SEARCH_COLUMNS}) SELECT ${SEARCH_COLUMNS} FROM search_texts`,
        'DROP TABLE search_texts',
        'ALTER TABLE search_texts_rebuilt RENAME TO search_texts',
        ...triggers.flatMap((t) => d.rowTriggerDdl(t)),
        ...d.fullText.indexDdl('search_texts', 'search_id', 'text', ['kind'], {
          deferred: d.fullText.defersIndexing,
        }),
      ];
    },
  },
  {
    // PostgreSQL kept the index current (a commit of an LLM call's running row wrote a posting row
    // and three btree entries per distinct word of its prompt, and waited for the disk with them)
    // until its deferred index queued the rows' ids instead: rebuilt deferred. SQLite's deferred
    // index is unchanged (migration 811): nothing.
    id: 813,
    name: 'search_texts_deferred_postings',
    up: (d: Dialect) =>
      d.fullText.upgradeIndexDdl('search_texts', 'search_id', 'text', ['kind'], {
        deferred: d.fullText.defersIndexing,
      }),
  },
  {
    // A text was searchable by its first 20 000 characters: a conversation's prompt grows with every
    // message, so past that its newest messages and tool results (no earlier prompt held them) were
    // never searchable. The copies now take the first and last half of a longer text (`cut`). Texts
    // already copied keep their copy.
    id: 814,
    name: 'search_texts_first_and_last_half',
    up: (d: Dialect) => {
      // Replaced whole: a row trigger's condition and columns are one definition.
      const triggers = copyTriggers(firstAndLastHalf);
      return [
        ...triggers.flatMap((t) => d.dropRowTriggerDdl(t.name, t.table)),
        ...triggers.flatMap((t) => d.rowTriggerDdl(t)),
      ];
    },
  },
  {
    // PostgreSQL's deferred index took a batch of its queue in the commit of every 64th copy (an LLM
    // call's running row or finish, mostly) until the store took the batches on a connection of its
    // own after its writes: the trigger functions replaced, the postings and the queue kept. SQLite's
    // triggers are unchanged: nothing.
    id: 815,
    name: 'search_texts_batches_beside_writers',
    up: (d: Dialect) =>
      d.fullText.replaceIndexFunctionsDdl('search_texts', 'search_id', 'text', ['kind'], {
        deferred: d.fullText.defersIndexing,
      }),
  },
];
