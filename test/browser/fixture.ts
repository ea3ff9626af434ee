/**
 * The browser tests' world: a SQLite store with the park scenario run for some turns by the scripted
 * model and toy services, served by a real `noema serve` HTTP surface on 127.0.0.1:0.
 */

import type { ModelScript } from '../../src/dev/scripted-model/index.ts';
import type { Engine } from '../../src/engine/index.ts';
import type { Store } from '../../src/store/store.ts';
import { startNoemaHttp } from '../../src/surfaces/http/start.ts';
import { openTestStore, type StoreKind, type TestStore } from '../../src/testing/stores.ts';
import { testTempDir } from '../../src/testing/temp-dir.ts';
import { type ParkKit, startParkKit } from '../../src/testing/world-kit.ts';

export const TOKEN = 'browser-test-token-0123456789';

export interface BrowserWorld {
  ts: TestStore;
  kit: ParkKit;
  url: string;
  /** The one-time login link printed by `noema serve`. */
  loginUrl: string;
  attempts: string[];
  close(): Promise<void>;
}

export interface Served {
  url: string;
  /** The one-time login link printed by `noema serve`. */
  loginUrl: string;
  close(): Promise<void>;
}

/** `noema serve`'s HTTP surface over `store` on 127.0.0.1:0 (its own engine unless one is given). */
export async function serveStore(store: Store, engine?: Engine): Promise<Served> {
  const served = await startNoemaHttp({
    store,
    host: '127.0.0.1',
    port: 0,
    portSetting: '--port',
    token: TOKEN,
    dataDir: testTempDir('noema-browser-'),
    ...(engine ? { engine } : {}),
  });
  return {
    url: served.url,
    loginUrl: `${served.url}/login?once=${encodeURIComponent(served.loginNonce)}`,
    close: () => served.close(),
  };
}

export async function startBrowserWorld(
  options: { turns?: number; script?: ModelScript; slug?: string; kind?: StoreKind } = {},
): Promise<BrowserWorld> {
  const ts = await openTestStore(options.kind ?? 'sqlite');
  const kit = await startParkKit(ts.store, options.script ? { script: options.script } : {});
  const saved = { ...process.env };
  Object.assign(process.env, kit.env);
  const slug = options.slug ?? 'park';
  await kit.world(slug);
  const attempts: string[] = [];
  for (let i = 0; i < (options.turns ?? 3); i++)
    attempts.push((await kit.runtime.runTurn({ world_slug: slug })).attempt_id);
  const served = await startNoemaHttp({
    store: ts.store,
    host: '127.0.0.1',
    port: 0,
    portSetting: '--port',
    token: TOKEN,
    dataDir: testTempDir('noema-browser-'),
    // The server streams the events of the engine that runs the turns, as `noema demo` serves its own.
    engine: kit.runtime.engine,
  });
  return {
    ts,
    kit,
    url: served.url,
    loginUrl: `${served.url}/login?once=${encodeURIComponent(served.loginNonce)}`,
    attempts,
    async close() {
      await served.close();
      await kit.close();
      await ts.dispose();
      process.env = saved;
    },
  };
}
