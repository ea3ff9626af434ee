/** Captures the process warnings Noema emits (`NoemaWarning`, see core/warn.ts), for tests that check a failure was logged. */
export interface CapturedWarning {
  code: string | undefined;
  message: string;
}

export interface WarningCapture {
  readonly warnings: CapturedWarning[];
  /** The captured warnings with this code. */
  withCode(code: string): CapturedWarning[];
  /** Waits (bounded) until a warning with `code` was captured; false on timeout. */
  waitFor(code: string, timeoutMs?: number): Promise<boolean>;
  stop(): void;
}

export function captureWarnings(): WarningCapture {
  const warnings: CapturedWarning[] = [];
  const onWarning = (w: Error & { code?: string }) => {
    if (w.name === 'NoemaWarning') warnings.push({ code: w.code, message: w.message });
  };
  process.on('warning', onWarning);
  const withCode = (code: string) => warnings.filter((w) => w.code === code);
  return {
    warnings,
    withCode,
    async waitFor(code, timeoutMs = 5_000) {
      const until = Date.now() + timeoutMs;
      while (withCode(code).length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
      return withCode(code).length > 0;
    },
    stop: () => process.off('warning', onWarning),
  };
}
