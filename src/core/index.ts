// Public API of core: the dependency-free foundation every other layer builds on.

export type { FitToBudgetOptions, FitToBudgetResult } from './budget.ts';
export { clampString, DEFAULT_MAX_CHARS, fitToBudget, jsonSize } from './budget.ts';
export { canonicalJson } from './canonical-json.ts';
export type { ErrorEnvelope, NoemaErrorJson, NoemaErrorOptions } from './errors.ts';
export {
  ERROR_CODES,
  ErrorCode,
  errorEnvelope,
  invalidInput,
  isErrorCode,
  isNoemaError,
  NoemaError,
  toNoemaError,
} from './errors.ts';
export { contentHash, isSha256Hex, sha256Hex } from './hash.ts';
export type { IdResult } from './ids.ts';
export {
  assertEntityId,
  assertHumanId,
  hasControlChars,
  isUuid,
  parseEntityId,
  parseHumanId,
  uuidv7,
  uuidv7Timestamp,
} from './ids.ts';
export {
  formatPointer,
  parsePointer,
  readPointer,
  unsafePointerReason,
  writePointer,
} from './json-pointer.ts';
export type {
  AssertValidOptions,
  JsonSchema,
  SchemaIssue,
  ValidationResult,
  Validator,
} from './schema-registry.ts';
export { SchemaRegistry, schemas } from './schema-registry.ts';
