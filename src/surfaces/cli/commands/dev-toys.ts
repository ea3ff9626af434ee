/** `noema dev toys`: serves the toy park services (weather, PA, phone, vending, fountain) in the foreground. */
import { parsePort } from '../../../app/config.ts';
import { listenError } from '../../../app/listen-error.ts';
import { type Command, EXIT_OK } from '../command.ts';
import { parseIntegerFlag } from '../flags.ts';
import { untilSignal } from '../signals.ts';

export const devToysCommand: Command = {
  path: ['dev', 'toys'],
  summary: 'Serve the toy park services on 127.0.0.1 and print the environment that points sources at them',
  flags: {
    port: { type: 'string', value: 'port', description: 'port to listen on', default: 'any free port' },
    'vending-stock': {
      type: 'string',
      value: 'n',
      description: 'candy bars per vending machine',
      default: '1',
    },
  },
  async run({ flags, io }) {
    const { startToyServices } = await import('../../../dev/toys/index.ts');
    const stopped = untilSignal();
    const port = typeof flags.port === 'string' ? parsePort(flags.port, '--port') : 0;
    const stockRaw = flags['vending-stock'];
    const vendingStock =
      typeof stockRaw === 'string'
        ? parseIntegerFlag(stockRaw, '--vending-stock', { min: 0, max: 1_000_000 })
        : 1;
    const toys = await startToyServices({ port, vendingStock }).catch((err: unknown) => {
      throw listenError(err, port, '--port');
    });
    io.out(`toy services serving on ${toys.url}`);
    io.out('paths: /weather /announcement /inbox /send /buy_candy /use_drinking_fountain');
    for (const [name, value] of Object.entries(toys.env)) io.out(`${name}=${value}`);
    const signal = await stopped;
    io.out(`received ${signal}, shutting down`);
    await toys.close();
    return EXIT_OK;
  },
};
