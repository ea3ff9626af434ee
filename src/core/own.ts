/**
 * Copying members of a JSON value or a header set by name. `out[key] = value` sets an object's
 * prototype when `key` is `"__proto__"` (a valid JSON member and header name) instead of making
 * it a member: the copy would lose the member and inherit the value's fields.
 */

/** `out[key] = value`, as an own enumerable member whatever the key. */
export function setOwn<T>(out: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__')
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}
