/** `noema flow import <file>`: imports an exported flowchart (legacy or current shape) into the store. */
import { readFileSync } from 'node:fs';
import { loadConfig } from '../../../app/config.ts';
import { openNoemaStore } from '../../../app/open.ts';
import { NoemaError } from '../../../core/errors.ts';
import { type Command, EXIT_OK } from '../command.ts';

export function readFlowchartFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new NoemaError('USAGE', `cannot read flowchart file ${path}: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new NoemaError('USAGE', `flowchart file ${path} is not JSON: ${(err as Error).message}`);
  }
}

export const flowImportCommand: Command = {
  path: ['flow', 'import'],
  summary: 'Import an exported flowchart (legacy or current shape); prints its id and validation',
  args: '<flowchart.json>',
  flags: { db: { type: 'string', description: 'store: file path or postgres:// URL (NOEMA_DB)' } },
  async run({ flags, positionals, io }) {
    const { importFlowchart } = await import('../../../runtimes/flow/index.ts');
    const [file] = positionals;
    if (!file)
      throw new NoemaError('USAGE', 'name the flowchart file', { hint: 'noema flow import flowchart.json' });
    const doc = readFlowchartFile(file);
    const store = await openNoemaStore(loadConfig({ db: flags.db as string | undefined }));
    try {
      const fc = await importFlowchart(store, doc);
      io.out(JSON.stringify(fc, null, 2));
    } finally {
      await store.close();
    }
    return EXIT_OK;
  },
};
