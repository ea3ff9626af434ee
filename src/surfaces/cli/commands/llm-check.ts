/**
 * `noema llm check [--endpoint NAME]`: one small structured call to an LLM endpoint as its
 * provider profile sends it; prints what was sent and what came back. Exit 1 when the call failed.
 */
import { loadConfig } from '../../../app/config.ts';
import { NoemaError } from '../../../core/errors.ts';
import { type Command, EXIT_FAILED, EXIT_OK } from '../command.ts';

export const llmCheckCommand: Command = {
  path: ['llm', 'check'],
  summary: 'Check an LLM endpoint: one small structured call as its provider profile sends it',
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
    if (report.ok) {
      io.out(
        `ok in ${report.duration_ms} ms: ${JSON.stringify(report.reply)} (finish_reason ${report.finish_reason ?? 'none'})`,
      );
    } else {
      io.out(`failed (${report.failure_class}) in ${report.duration_ms} ms: ${report.message}`);
      if (report.hint) io.out(`hint: ${report.hint}`);
    }
    if (report.tokens) {
      const t = report.tokens;
      const said = (['input', 'output', 'cached', 'reasoning'] as const).map(
        (k) => `${k} ${t[k] ?? 'not reported'}`,
      );
      io.out(`tokens: ${said.join(', ')}`);
    }
    if (report.reasoning) io.out('reasoning text: received');
    return report.ok ? EXIT_OK : EXIT_FAILED;
  },
};
