/**
 * `npm run pack-check`: what a user gets from `npm pack`. Packs the project, checks the tarball
 * ships no tests, benchmarks or images, installs it into an empty folder with the system's npm
 * (the project's node_modules off PATH, as in a user's shell), then runs `npx noema --help` and
 * `npx noema demo --no-serve` there. Prints the tarball's size; exits 1 on any failure.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const work = mkdtempSync(join(tmpdir(), 'noema-pack-'));
const app = join(work, 'app');
mkdirSync(app);

/** The environment of a user's shell: this project's node_modules/.bin off PATH, npm's script variables gone. */
const userEnv: NodeJS.ProcessEnv = Object.fromEntries(
  Object.entries(process.env).filter(
    ([k]) => !k.startsWith('npm_') && k !== 'INIT_CWD' && !k.startsWith('NOEMA_'),
  ),
);
userEnv.PATH = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((p) => !p.startsWith(join(root, 'node_modules')))
  .join(delimiter);

function run(label: string, command: string, args: string[], cwd: string, env = userEnv): string {
  const started = Date.now();
  const r = spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout: 300_000 });
  const took = ((Date.now() - started) / 1000).toFixed(1);
  if (r.status !== 0) {
    console.error(
      `pack-check: ${label} failed (exit ${r.status ?? r.signal}, ${took} s)\n${r.stdout}\n${r.stderr}`,
    );
    process.exit(1);
  }
  console.log(`pack-check: ${label} ok (${took} s)`);
  return r.stdout;
}

try {
  const packed = JSON.parse(
    run('npm pack', 'npm', ['pack', '--json', '--pack-destination', work], root),
  ) as Array<{
    filename: string;
    files: Array<{ path: string }>;
  }>;
  const tarball = join(work, packed[0]!.filename);
  const shipped = packed[0]!.files.map((f) => f.path);
  const unwanted = shipped.filter((p) =>
    /(^|\/)(test|bench|scripts|testing|conformance)\/|\.(test|spec)\.ts$|^docs\/images\/|\.png$/.test(p),
  );
  if (unwanted.length > 0) {
    console.error(`pack-check: the tarball ships files a user does not need:\n  ${unwanted.join('\n  ')}`);
    process.exit(1);
  }
  console.log(
    `pack-check: ${packed[0]!.filename}: ${Math.round(statSync(tarball).size / 1024)} kB, ${shipped.length} files`,
  );
  run(
    'npm install <tarball>',
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball],
    app,
  );
  const help = run('npx noema --help', 'npx', ['noema', '--help'], app);
  if (!/Usage: noema/.test(help)) {
    console.error(`pack-check: \`npx noema --help\` printed no usage:\n${help}`);
    process.exit(1);
  }
  const demo = run('npx noema demo --no-serve', 'npx', ['noema', 'demo', '--no-serve'], app);
  if (!/Demo done/.test(demo)) {
    console.error(`pack-check: the demo did not finish:\n${demo}`);
    process.exit(1);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
