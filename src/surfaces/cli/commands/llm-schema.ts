/**
 * `noema llm schema <schema.json> [--endpoint NAME]`: what a result schema becomes at each configured
 * endpoint's provider — sent as written, converted into the strict subset, or refused with the JSON
 * pointer and rule — checked when the schema is written, not when a call first sends it.
 */
import { loadConfig } from '../../../app/config.ts';
import { NoemaError } from '../../../core/errors.ts';
import { type Command, EXIT_FAILED, EXIT_OK } from '../command.ts';
import { readJsonFile } from '../files.ts';

export const llmSchemaCommand: Command = {
  path: ['llm', 'schema'],
  summary: "Say what a result schema becomes at each endpoint's provider: as written, converted, or refused",
  args: [{ name: 'schema.json', required: true, description: 'a JSON Schema a model is to answer' }],
  flags: {
    endpoint: {
      type: 'string',
      value: 'name',
      description: 'only this endpoint (default every configured one)',
    },
    json: { type: 'boolean', description: 'print the plans as JSON' },
  },
  example: 'noema llm schema schemas/reply.json',
  async run({ flags, positionals, io }) {
    const schema = readJsonFile(positionals[0]!, 'schema file');
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
      throw new NoemaError('USAGE', `schema file ${positionals[0]} is not a JSON Schema object`);
    loadConfig({});
    const { schemaPlansForEndpoints } = await import('../../../sources/index.ts');
    const all = schemaPlansForEndpoints(schema as Record<string, unknown>, process.env);
    const plans = typeof flags.endpoint === 'string' ? all.filter((p) => p.endpoint === flags.endpoint) : all;
    if (plans.length === 0)
      throw new NoemaError(
        'USAGE',
        typeof flags.endpoint === 'string'
          ? `--endpoint is invalid: "${flags.endpoint}" is not a configured endpoint`
          : 'no LLM endpoint is configured',
        { hint: 'set NOEMA_LLM_BASE_URL and NOEMA_LLM_PROVIDER (or NOEMA_LLM_<NAME>_…)' },
      );
    const refused = plans.some((p) => p.form === 'refused');
    if (flags.json === true) {
      io.out(JSON.stringify(plans, null, 2));
      return refused ? EXIT_FAILED : EXIT_OK;
    }
    for (const p of plans) {
      io.out(`endpoint ${p.endpoint} (${p.provider}): ${p.form.replace('_', ' ')}`);
      for (const v of p.violations ?? []) io.out(`  ${v.path || '/'}: ${v.message}`);
    }
    return refused ? EXIT_FAILED : EXIT_OK;
  },
};
