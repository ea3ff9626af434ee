// First start without a compile cache: Node strips TypeScript with a WebAssembly compiler that,
// once loaded, stays in the process (about 30 MB of a long-running server's RSS). So when the
// cache is cold, a short-lived child process loads every module once to fill the cache, and the
// process that keeps running then loads them from it, never loading the stripper (it re-executes
// itself first where Node can, so a first start is a warm start). Plain
// JavaScript on purpose: this file itself must not need stripping.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function version() {
  try {
    return JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
  } catch {
    return '0';
  }
}

/**
 * Every module a process may load: `src/**\/*.ts` but tests, specs and scripts (files that read
 * `process.argv` or await at top level run when imported).
 */
function modules(dir = join(root, 'src')) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) out.push(...modules(path));
    else if (e.name.endsWith('.ts') && !/\.(test|spec)\.ts$/.test(e.name)) {
      const text = readFileSync(path, 'utf8');
      if (!text.includes('process.argv') && !/^(const [^=]+= )?await /m.test(text)) out.push(path);
    }
  }
  return out;
}

/** Where Node keeps its compile cache by default (NODE_COMPILE_CACHE, or the temp directory). */
export function compileCacheDir() {
  return process.env.NODE_COMPILE_CACHE || join(tmpdir(), 'node-compile-cache');
}

/** Fills the compile cache `dir` once per Noema and Node version (a marker file records it). */
export function precompileOnce(dir) {
  if (!dir || process.env.NOEMA_PRECOMPILE === '0' || process.env.NODE_DISABLE_COMPILE_CACHE) return;
  const marker = join(dir, `noema-${version()}-${process.version}.precompiled`);
  if (existsSync(marker)) return;
  try {
    mkdirSync(dir, { recursive: true });
  } catch {
    return;
  }
  // Loaded only here, when the cache is cold: a warm start never needs it (~3 MB of RSS).
  const { spawnSync } = process.getBuiltinModule('node:child_process');
  // The same V8 flags as this process: the cache is kept per set of flags.
  const r = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--fill'], {
    stdio: 'ignore',
    env: { ...process.env, NODE_COMPILE_CACHE: dir },
    timeout: 60_000,
  });
  // A failure only means this process strips what it loads itself, as without a cache.
  if (r.status !== 0) return;
  try {
    writeFileSync(marker, '');
  } catch {
    return;
  }
  // Spawning the child loaded node:child_process into this process for good (~1.5 MB a server would
  // carry all its life). Where the platform can, start over as the same process (same pid, same open
  // files) that now finds the cache warm — the marker written, so it does not come back here.
  process.execve?.(process.execPath, [process.execPath, ...process.execArgv, ...process.argv.slice(1)]);
}

if (process.argv[2] === '--fill') {
  const { flushCompileCache } = await import('node:module');
  for (const path of modules()) {
    try {
      await import(pathToFileURL(path).href);
    } catch {
      // A module that fails to load here fails the same way in the real process, with its error.
    }
  }
  flushCompileCache?.();
  // Some modules hold timers or sockets once imported; the cache is written, so stop here.
  process.exit(0);
}
