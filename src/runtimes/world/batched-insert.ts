/**
 * Multi-row INSERTs for the turn's commit: a row per statement costs a round trip per row on a
 * networked store. Statements hold a power of two of rows (at most 64), so a table has at most seven
 * statement shapes (PostgreSQL prepares each shape once) and a batch of n rows takes at most
 * n / 64 + 6 statements.
 */
import type { Queryable, SqlValue } from '../../store/store.ts';

const MAX_ROWS = 64;

/** Runs `head VALUES tuple, tuple, …` over `rows`, each row the parameters of one `tuple`. */
export async function insertBatched(
  q: Queryable,
  head: string,
  tuple: string,
  rows: readonly (readonly SqlValue[])[],
): Promise<void> {
  for (let i = 0; i < rows.length; ) {
    let n = MAX_ROWS;
    while (n > rows.length - i) n >>= 1;
    await q.run(`${head} VALUES ${new Array<string>(n).fill(tuple).join(', ')}`, rows.slice(i, i + n).flat());
    i += n;
  }
}
