/**
 * The `pg_notify` statement of a notification, its payload written into the SQL text: it is sent in
 * a simple-protocol query with the savepoint and COMMIT around it (`commit.ts`), which takes no
 * parameters. A payload is engine events as JSON (a few KB a commit, a world turn's about 320 KB),
 * so how it is quoted is on the commit path: dollar-quoted it is used as it is, one native scan for
 * the quote's tag; `pg.escapeLiteral`'s loop, a string built a character at a time, took 9–10 µs a
 * 0.7 KB payload and 60–100 µs a 6 KB one.
 */

/** The dollar quote's tag. A payload holding `$noema` (which any false end of the quote would) is escaped instead. */
const TAG = '$noema$';

/** `SELECT pg_notify(<channel>, <payload>)` as SQL text. */
export function notifySql(channel: string, payload: string): string {
  return `SELECT pg_notify(${quoted(channel)}, ${quoted(payload)})`;
}

/**
 * `text` as a SQL string literal that reads back as exactly `text`. Dollar-quoted, the text is taken
 * literally up to the first `$noema$`: a text holding none (nor ending in `$noema`, which with the
 * closing tag would make one) is copied unchanged. Otherwise a standard literal, each `'` doubled and,
 * where the text has a backslash, each one doubled in an `E'…'` literal (what `pg.escapeLiteral`
 * writes), found with `indexOf` rather than a character at a time.
 */
export function quoted(text: string): string {
  if (!text.includes('$noema')) return `${TAG}${text}${TAG}`;
  let backslash = text.indexOf('\\');
  let quote = text.indexOf("'");
  let out = backslash < 0 ? "'" : " E'";
  let from = 0;
  for (;;) {
    const at = backslash < 0 ? quote : quote < 0 ? backslash : Math.min(backslash, quote);
    if (at < 0) break;
    // Up to and including the character; the next piece starts at it again, which doubles it.
    out += text.slice(from, at + 1);
    from = at;
    if (at === backslash) backslash = text.indexOf('\\', at + 1);
    else quote = text.indexOf("'", at + 1);
  }
  return `${out}${text.slice(from)}'`;
}
