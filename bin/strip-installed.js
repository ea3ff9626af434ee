// Node strips TypeScript types only outside node_modules: installed as a dependency
// (`npm install noema`), Noema's own `src/**/*.ts` would not load. So there, and only there, a
// load hook strips the types of this package's own files with Node's own stripper
// (`module.stripTypeScriptTypes`, the one Node uses for files outside node_modules).
// Plain JavaScript on purpose: this file itself must not need stripping.
import { readFileSync } from 'node:fs';
import { registerHooks, stripTypeScriptTypes } from 'node:module';
import { pathToFileURL } from 'node:url';

/** Whether the package at `root` sits inside a node_modules folder (installed, not a clone). */
export function isInstalled(root) {
  return /[\\/]node_modules[\\/]/.test(root);
}

/** Strips the types of `root/src/**\/*.ts` as they load; other files load as Node would. */
export function stripInstalledTypes(root) {
  const src = pathToFileURL(`${root}/src/`).href;
  registerHooks({
    load(url, context, nextLoad) {
      if (!url.startsWith(src) || !url.endsWith('.ts')) return nextLoad(url, context);
      const source = readFileSync(new URL(url), 'utf8');
      return { format: 'module', source: strip(source), shortCircuit: true };
    },
  });
}

let warned = false;

/** Node's stripper, without its one-time "experimental" warning (it is the stripper Node itself runs). */
function strip(source) {
  if (warned) return stripTypeScriptTypes(source);
  const emitWarning = process.emitWarning;
  process.emitWarning = (warning, ...rest) => {
    if (!String(warning).includes('stripTypeScriptTypes')) emitWarning.call(process, warning, ...rest);
  };
  try {
    return stripTypeScriptTypes(source);
  } finally {
    process.emitWarning = emitWarning;
    warned = true;
  }
}
