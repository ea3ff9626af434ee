import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isNoemaError } from '../../../core/errors.ts';
import { parseCard } from './parse-card.ts';

const fails = (card: unknown, code: string, re?: RegExp) =>
  assert.throws(
    () => parseCard(card),
    (e: unknown) => isNoemaError(e) && e.code === code && (!re || re.test(e.message)),
  );

describe('think card parsing', () => {
  test('a JSON object, a JSON string and the DSL give the same card', () => {
    const expected = {
      id: 'H-1',
      type: 'hypothesis',
      title: 'Cache is cold',
      status: 'open',
      tags: ['db', 'perf'],
    };
    assert.deepEqual(
      parseCard({ id: 'H-1', type: 'hypothesis', title: 'Cache is cold', tags: ['Perf', 'db'] }),
      expected,
    );
    assert.deepEqual(
      parseCard(
        JSON.stringify({ card_id: 'H-1', type: 'hypothesis', title: 'Cache is cold', tags: ['perf', 'DB'] }),
      ),
      expected,
    );
    assert.deepEqual(
      parseCard('id: H-1\ntype: hypothesis\ntitle: Cache is cold\ntags: perf, db, perf'),
      expected,
    );
  });

  test('DSL keeps unknown keys under meta and continues multi-line values', () => {
    const card = parseCard(
      'id: Q-1\ntype: question\ntext: first line\n  second line\nowner: ana\nPriority: high',
    );
    assert.deepEqual(card, {
      id: 'Q-1',
      type: 'question',
      text: 'first line\n  second line',
      status: 'open',
      tags: [],
      meta: { owner: 'ana', priority: 'high' },
    });
  });

  test('unknown keys of an object card also go under meta, next to explicit meta', () => {
    const card = parseCard({ id: 'E-1', type: 'evidence', text: 't', meta: { a: 1 }, source: 'log' });
    assert.deepEqual(card.meta, { a: 1, source: 'log' });
  });

  test('id, a supported type and a title or text are required', () => {
    fails({ type: 'note', title: 't' }, 'INVALID_INPUT', /id is required/);
    fails({ id: 'x', title: 't' }, 'INVALID_INPUT', /type is required/);
    fails({ id: 'x', type: 'musing', title: 't' }, 'UNKNOWN_TYPE');
    fails({ id: 'x', type: 'note', title: '  ', text: '' }, 'INVALID_INPUT', /title or text/);
    fails({ id: 'task:1', type: 'note', title: 't' }, 'INVALID_INPUT', /reserved/);
    fails({ id: 'a', card_id: 'b', type: 'note', title: 't' }, 'INVALID_INPUT', /differ/);
  });

  test('malformed cards are INVALID_INPUT', () => {
    fails('{"id": ', 'INVALID_INPUT', /JSON/);
    fails('just some prose', 'INVALID_INPUT', /key: value/);
    fails('id: a\nid: b\ntype: note\ntitle: t', 'INVALID_INPUT', /twice/);
    fails(42, 'INVALID_INPUT');
    fails([], 'INVALID_INPUT');
    fails({ id: 'a', type: 'note', title: 't', status: 'x|y' }, 'INVALID_INPUT');
  });

  test('status defaults to open', () => {
    assert.equal(parseCard({ id: 'a', type: 'decision', title: 't' }).status, 'open');
    assert.equal(parseCard({ id: 'a', type: 'decision', title: 't', status: 'done' }).status, 'done');
  });
});
