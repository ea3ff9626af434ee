/** An in-process `noema serve` HTTP surface on 127.0.0.1:0 over a test store, and small fetch helpers. */
import type { Store } from '../../src/store/store.ts';
import { startNoemaHttp } from '../../src/surfaces/http/start.ts';
import { testTempDir } from '../../src/testing/temp-dir.ts';

export const TOKEN = 'http-test-token-0123456789';

// biome-ignore lint/suspicious/noExplicitAny: answers are asserted field by field in the specs
export type Loose = any;

export interface Answer {
  status: number;
  headers: Headers;
  body: Loose;
  text: string;
}

export interface TestHttp {
  url: string;
  loginNonce: string;
  dataDir: string;
  /** GET with the bearer token (unless `auth: false`); JSON body parsed when the answer is JSON. */
  get(path: string, init?: { auth?: boolean; headers?: Record<string, string> }): Promise<Answer>;
  close(): Promise<void>;
}

export async function startTestHttp(store: Store): Promise<TestHttp> {
  const dataDir = testTempDir('noema-http-');
  const served = await startNoemaHttp({
    store,
    host: '127.0.0.1',
    port: 0,
    portSetting: '--port',
    token: TOKEN,
    dataDir,
  });
  return {
    url: served.url,
    loginNonce: served.loginNonce,
    dataDir,
    async get(path, init = {}) {
      const headers: Record<string, string> = {
        ...(init.auth === false ? {} : { authorization: `Bearer ${TOKEN}` }),
        ...init.headers,
      };
      const res = await fetch(`${served.url}${path}`, { headers, redirect: 'manual' });
      const text = await res.text();
      const json = (res.headers.get('content-type') ?? '').startsWith('application/json');
      return { status: res.status, headers: res.headers, body: json ? JSON.parse(text) : undefined, text };
    },
    close: () => served.close(),
  };
}
