import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { notifySql, quoted } from './notify-sql.ts';

// Pinned to no store: how a payload is written into SQL text. That the server reads each form back
// exactly is the listen conformance spec's (`a notification's payload arrives exactly as sent`).

test('a payload without `$noema` is dollar-quoted and copied unchanged', () => {
  for (const text of ['', "it's", 'a\\b', '$', '$$', 'é漢字🙂', '{"a":"b\\"c"}'])
    assert.equal(quoted(text), `$noema$${text}$noema$`);
  assert.equal(notifySql('noema_a', "x'y"), "SELECT pg_notify($noema$noema_a$noema$, $noema$x'y$noema$)");
});

test('a payload holding `$noema` is escaped as pg.escapeLiteral escapes it', () => {
  for (const text of [
    '$noema$',
    'ends with $noema',
    "$noema it's",
    '$noema a\\b',
    "$noema '\\'\\\\''",
    "'$noema'",
    '\\$noema\\',
    "$noema ''",
  ])
    assert.equal(quoted(text), pg.escapeLiteral(text), text);
});
