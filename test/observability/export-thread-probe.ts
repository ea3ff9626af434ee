// Run as a fresh process by export-thread.test.ts: starts span export to the receiver at argv[2],
// queues argv[3] spans and, unless argv[4] is `no-flush`, flushes them with nothing else keeping
// the process alive; prints whether this thread loaded the OTLP exporter or its serializer.
import { registerHooks } from 'node:module';

const seen: string[] = [];
// Module hooks are the thread's own: a module loaded by another thread is not seen here.
registerHooks({
  resolve(specifier, context, next) {
    const r = next(specifier, context);
    seen.push(r.url);
    return r;
  },
});

const [url, count, mode] = process.argv.slice(2);
const { traceSettings } = await import('../../src/observability/settings.ts');
const { startSpanExport } = await import('../../src/observability/span-export.ts');
const spans = await startSpanExport(traceSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: url })!);
for (let i = 0; i < Number(count); i++) {
  spans.emit({
    name: `probe ${i}`,
    kind: 'internal',
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    spanId: `00f067aa0ba902${String(10 + i)}`,
    parent: null,
    start: Date.now() - 1,
    end: Date.now(),
    attributes: { 'noema.probe': i },
  });
}
if (mode !== 'no-flush') await spans.flush(10_000);
console.log(
  JSON.stringify({
    flushed: mode !== 'no-flush',
    exporterHere: seen.some((u) => /exporter-trace-otlp|otlp-transformer|otlp-exporter-base/.test(u)),
    dropped: spans.dropped(),
  }),
);
