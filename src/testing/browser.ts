/**
 * Headless Chromium for browser tests and screenshots, driven by playwright-core with Debian's
 * `chromium` (never a downloaded browser). `launchBrowser()` answers `{ skip }` with the reason when
 * no Chromium is installed, so a test can skip saying why.
 */
import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';

const CANDIDATES = [process.env.NOEMA_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'];

export function chromiumPath(): string | undefined {
  return CANDIDATES.find((p): p is string => typeof p === 'string' && p !== '' && existsSync(p));
}

// Without the background-networking flags Chromium keeps dialing out, and this machine has no network.
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export async function launchBrowser(): Promise<
  { browser: Browser; close(): Promise<void> } | { skip: string }
> {
  const executablePath = chromiumPath();
  if (!executablePath)
    return { skip: 'no Chromium installed (apt-get install chromium, or set NOEMA_CHROMIUM)' };
  const { chromium } = await import('playwright-core');
  // Playwright gives every launch a fresh temporary profile of its own.
  const browser = await chromium.launch({ executablePath, args: ARGS });
  return { browser, close: () => browser.close() };
}
