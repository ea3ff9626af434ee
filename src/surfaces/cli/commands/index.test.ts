import assert from 'node:assert/strict';
import { test } from 'node:test';
import { allCommands, commandsFor } from './index.ts';

test('the commands loaded for a first word are every command under it, in help order', async () => {
  const all = await allCommands();
  const words = [...new Set(all.map((c) => c.path[0]!))];
  for (const word of words) {
    const under = (await commandsFor([word, '--help'])).map((c) => c.path.join(' '));
    assert.deepEqual(
      under,
      all.filter((c) => c.path[0] === word).map((c) => c.path.join(' ')),
      word,
    );
  }
});

test('a first word that is no command (a typo, help, a flag) loads them all', async () => {
  const all = (await allCommands()).length;
  for (const argv of [['serv'], ['help', 'serve'], ['--help'], []]) {
    assert.equal((await commandsFor(argv)).length, all, argv.join(' '));
  }
});
