/** `noema flow import <file>`: imports an exported flowchart (legacy or current shape) into the store. */
import { loadConfig } from '../../../app/config.ts';
import { openNoemaStore } from '../../../app/open.ts';
import { type Command, DB_FLAG, EXIT_OK } from '../command.ts';
import { readJsonFile } from '../files.ts';

export const flowImportCommand: Command = {
  path: ['flow', 'import'],
  summary: 'Import an exported flowchart (legacy or current shape); prints its id and validation',
  args: [{ name: 'flowchart.json', required: true, description: 'the exported flowchart file' }],
  flags: { db: DB_FLAG },
  example: 'noema flow import examples/flowcharts/support-triage.json',
  async run({ flags, positionals, io }) {
    const { importFlowchart } = await import('../../../runtimes/flow/index.ts');
    const doc = readJsonFile(positionals[0]!, 'flowchart file');
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
