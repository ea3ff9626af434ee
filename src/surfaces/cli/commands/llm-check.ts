/**
 * `noema llm check [--endpoint NAME]`: what an LLM endpoint can do, as its provider profile sends
 * it — one line per capability, one line per failure with what to set. Exit 1 when one failed.
 */
import { loadConfig } from '../../../app/config.ts';
import { NoemaError } from '../../../core/errors.ts';
import type { Capability } from '../../../sources/index.ts';
import { type Command, EXIT_FAILED, EXIT_OK } from '../command.ts';

const LABELS: Record<Capability, string> = {
  model_listed: 'model listed',
  streaming: 'streaming',
  usage: 'usage reported',
  structured_output: 'structured output',
  latency: 'latency',
};

export const llmCheckCommand: Command = {
  path: ['llm', 'check'],
  summary:
    'Check an LLM endpoint: model listed, streaming, usage, structured output and latency, as its provider profile sends',
  flags: {
    endpoint: {
      type: 'string',
      value: 'name',
      description: 'a named endpoint (NOEMA_LLM_<NAME>_BASE_URL …)',
      default: 'the default endpoint (NOEMA_LLM_BASE_URL …)',
    },
    model: {
      type: 'string',
      value: 'model',
      description: "the model to call (default the endpoint's …_MODEL)",
    },
    json: { type: 'boolean', description: 'print the report as JSON' },
  },
  example: 'noema llm check --endpoint fast',
  async run({ flags, io }) {
    if (typeof flags.endpoint === 'string' && !/^[a-z][a-z0-9_]{0,63}$/.test(flags.endpoint)) {
      throw new NoemaError('USAGE', `--endpoint is invalid: "${flags.endpoint}" is not an endpoint name`, {
        details: { flag: '--endpoint' },
        hint: 'a lower-case name as in NOEMA_LLM_<NAME>_BASE_URL, e.g. --endpoint fast',
      });
    }
    // The settings (providers, token limits, prices) are checked as every command checks them.
    loadConfig({});
    const { checkLlmEndpoint } = await import('../../../sources/index.ts');
    const report = await checkLlmEndpoint(process.env, {
      ...(typeof flags.endpoint === 'string' ? { endpoint: flags.endpoint } : {}),
      ...(typeof flags.model === 'string' ? { model: flags.model } : {}),
    });
    if (flags.json === true) {
      io.out(JSON.stringify(report, null, 2));
      return report.ok ? EXIT_OK : EXIT_FAILED;
    }
    io.out(
      `endpoint ${report.endpoint}: ${report.provider ?? '?'} at ${report.base_url ?? '?'}, model ${report.model ?? '?'}`,
    );
    if (report.sent)
      io.out(
        `sent: token limit as ${report.sent.token_limit}, schema ${report.sent.schema}, stream_options ${report.sent.stream_options ? 'yes' : 'no'}`,
      );
    const width = Math.max(...report.capabilities.map((l) => LABELS[l.capability].length));
    for (const l of report.capabilities)
      io.out(`${LABELS[l.capability].padEnd(width)}  ${l.status.padEnd(7)}  ${l.detail}`);
    if (report.reasoning)
      io.out(`${'reasoning text'.padEnd(width)}  ${'seen'.padEnd(7)}  in ${report.provider} reasoning field`);
    for (const l of report.capabilities)
      if (l.status === 'failed')
        io.out(`failed: ${LABELS[l.capability]} (${l.problem ?? 'unknown'})${l.fix ? ` — ${l.fix}` : ''}`);
    if (report.capabilities.every((l) => l.status === 'skipped') && report.failure_class)
      io.out(`failed (${report.failure_class}): ${report.message}${report.hint ? ` — ${report.hint}` : ''}`);
    io.out(report.ok ? `ok in ${report.duration_ms} ms` : `check failed in ${report.duration_ms} ms`);
    return report.ok ? EXIT_OK : EXIT_FAILED;
  },
};
