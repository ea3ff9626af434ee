/** `noema dev scripted-model`: serves the scripted OpenAI-compatible model in the foreground. */
import { parsePort } from '../../../app/config.ts';
import { listenError } from '../../../app/listen-error.ts';
import { isNoemaError, NoemaError } from '../../../core/errors.ts';
import { type Command, EXIT_OK } from '../command.ts';
import { requirePath } from '../files.ts';
import { untilSignal } from '../signals.ts';

export const devScriptedModelCommand: Command = {
  path: ['dev', 'scripted-model'],
  summary:
    'Serve a scripted OpenAI-compatible model on 127.0.0.1 (see docs/sources.md for the script format)',
  flags: {
    script: { type: 'string', value: 'file', description: 'the script file (JSON)' },
    port: { type: 'string', value: 'port', description: 'port to listen on', default: 'any free port' },
  },
  async run({ flags, io }) {
    const { loadScript, startScriptedModel } = await import('../../../dev/scripted-model/index.ts');
    const stopped = untilSignal();
    if (typeof flags.script !== 'string') {
      throw new NoemaError('USAGE', '--script <file> is required', {
        hint: 'noema dev scripted-model --script model.json',
      });
    }
    requirePath(flags.script, '--script');
    let script: ReturnType<typeof loadScript>;
    try {
      script = loadScript(flags.script);
    } catch (err) {
      // A script the operator named is configuration: one line naming --script, exit 2.
      if (!isNoemaError(err)) throw err;
      throw new NoemaError('USAGE', `--script is invalid: ${err.message}`, {
        details: { flag: '--script', ...err.details },
        hint: 'see docs/sources.md ("Scripted model") for the script format',
      });
    }
    const port = typeof flags.port === 'string' ? parsePort(flags.port, '--port') : 0;
    const server = await startScriptedModel({ script, port, record: false }).catch((err: unknown) => {
      throw listenError(err, port, '--port');
    });
    io.out(`scripted model serving on ${server.url} (${script.rules.length} rules)`);
    io.out(`NOEMA_LLM_BASE_URL=${server.url}`);
    const signal = await stopped;
    io.out(`received ${signal}, shutting down`);
    await server.close();
    return EXIT_OK;
  },
};
