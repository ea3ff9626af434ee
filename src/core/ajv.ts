/**
 * Ajv (JSON Schema 2020-12), loaded on the first call to `createAjv`: a process that never validates
 * (an idle server, `noema --help`) does not carry Ajv, its meta-schemas and formats. Required, not
 * imported: compiling is synchronous, and Ajv is CommonJS.
 */
import { createRequire } from 'node:module';
import type { Ajv2020, Options } from 'ajv/dist/2020.js';
import type addFormatsModule from 'ajv-formats';

const require = createRequire(import.meta.url);

/** A new Ajv with `options`; with `formats`, ajv-formats' formats (`date-time`, `email`, …) added. */
export function createAjv(options: Options, { formats = false }: { formats?: boolean } = {}): Ajv2020 {
  const { Ajv2020 } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  const ajv = new Ajv2020(options);
  // ajv-formats is CommonJS with `exports.default`.
  if (formats) (require('ajv-formats') as typeof addFormatsModule).default(ajv);
  return ajv;
}
