#!/usr/bin/env node
// The `noema` executable. Noema needs Node 24; when started by an older system Node, it
// re-runs itself on the Node 24 that `npm install` placed in node_modules/.bin.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  // In a clone, its own node_modules; installed as a dependency, the node_modules it sits in.
  const local = [join(root, 'node_modules', '.bin', 'node'), join(root, '..', '.bin', 'node')].find(
    existsSync,
  );
  if (!local || process.env.NOEMA_REEXEC === '1') {
    console.error(
      `noema: Node.js 24 is required (this is ${process.version}); run \`npm install\` in ${root}`,
    );
    process.exit(2);
  }
  const { spawnSync } = await import('node:child_process');
  const r = spawnSync(local, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, NOEMA_REEXEC: '1' },
  });
  process.exit(r.status ?? 1);
} else {
  // Caches compiled (type-stripped) modules on disk: faster starts and ~30 MB less RSS; on a
  // cold cache a short-lived child fills it first (see precompile.js).
  // The cache is filled before it is enabled here: Node reads it when enabled.
  const { enableCompileCache } = await import('node:module');
  const { compileCacheDir, precompileOnce } = await import('./precompile.js');
  const dir = compileCacheDir();
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const { isInstalled, stripInstalledTypes } = await import('./strip-installed.js');
  // Installed as a dependency, a hook strips the types, so there is no stripper to keep out.
  if (isInstalled(root)) stripInstalledTypes(root);
  else precompileOnce(dir);
  enableCompileCache?.(dir);
  const { main } = await import('../src/surfaces/cli/main.ts');
  const code = await main(process.argv.slice(2), {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
  });
  process.exitCode = code;
}
