/**
 * `noema dev provider --profile <p>`: serves the provider fixture — an OpenAI-compatible server that
 * refuses what that provider refuses and answers in its shapes (docs/providers.md).
 */
import { parsePort } from '../../../app/config.ts';
import { listenError } from '../../../app/listen-error.ts';
import { NoemaError } from '../../../core/errors.ts';
import { type Command, EXIT_OK } from '../command.ts';
import { untilSignal } from '../signals.ts';

export const devProviderCommand: Command = {
  path: ['dev', 'provider'],
  summary: "Serve a provider fixture on 127.0.0.1: one provider's request rules, streams and error bodies",
  flags: {
    profile: {
      type: 'string',
      value: 'provider',
      description:
        'the provider to act as: openai, azure-openai, anthropic, gemini, openrouter, ollama, vllm, llamacpp or lmstudio',
      required: true,
    },
    reply: { type: 'string', value: 'text', description: 'the assistant reply', default: '{"ok":true}' },
    port: { type: 'string', value: 'port', description: 'port to listen on', default: 'any free port' },
    models: {
      type: 'string',
      value: 'a,b',
      description: 'the models served (GET /models lists them; a call naming another is model_not_found)',
      default: "any model, the recording's names listed",
    },
  },
  example: 'noema dev provider --profile openai',
  async run({ flags, io }) {
    const { isProviderName, PROVIDERS, startProviderFixture, SCENARIOS } = await import(
      '../../../dev/provider-fixture/index.ts'
    );
    const profile = String(flags.profile ?? '');
    if (!isProviderName(profile) || profile === 'generic') {
      throw new NoemaError('USAGE', `--profile is invalid: "${profile}" is not a provider`, {
        details: { flag: '--profile' },
        hint: `one of ${PROVIDERS.filter((p) => p !== 'generic').join(', ')}`,
      });
    }
    const stopped = untilSignal();
    const port = typeof flags.port === 'string' ? parsePort(flags.port, '--port') : 0;
    const server = await startProviderFixture({
      profile,
      port,
      ...(typeof flags.reply === 'string' ? { reply: flags.reply } : {}),
      ...(typeof flags.models === 'string'
        ? {
            models: flags.models
              .split(',')
              .map((m) => m.trim())
              .filter((m) => m !== ''),
          }
        : {}),
    }).catch((err: unknown) => {
      throw listenError(err, port, '--port');
    });
    io.out(`${profile} provider fixture serving on ${server.url}`);
    io.out(`NOEMA_LLM_BASE_URL=${server.url}`);
    io.out(`NOEMA_LLM_PROVIDER=${profile}`);
    io.out(
      `next answers: POST ${server.url.replace(/\/v1$/, '')}/fixture/next {"scenarios": [...]} (${SCENARIOS.join(', ')})`,
    );
    const signal = await stopped;
    io.out(`received ${signal}, shutting down`);
    await server.close();
    return EXIT_OK;
  },
};
