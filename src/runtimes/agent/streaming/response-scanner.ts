/**
 * Extracts the top-level `"response"` string of a reasoning reply from its JSON text as the text
 * streams in, chunk by chunk: `feed` returns the newly decoded characters of that string (escapes
 * and `\uXXXX` decoded, surrogate pairs never split between two results). It only follows the
 * JSON's structure (strings, nesting, keys at depth 1); the reply is validated as a whole later,
 * and the committed `text` event stays the truth. Text before the first `{` (a code fence) is skipped.
 */

const ESCAPES: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

export class ResponseTextScanner {
  #depth = 0;
  #inString = false;
  #escape = false;
  /** Hex digits of a `\u` escape being read, or null. */
  #unicode: string | null = null;
  #stringIsKey = false;
  #key = '';
  #lastKey: string | null = null;
  #expectValue = false;
  #capturing = false;
  #finished = false;
  /** A high surrogate held back until its pair arrives. */
  #carry = '';
  /** Characters of the response decoded so far. */
  length = 0;

  /** True once the response string was read to its closing quote. */
  get finished(): boolean {
    return this.#finished;
  }

  feed(chunk: string): string {
    let out = this.#carry;
    this.#carry = '';
    const put = (ch: string) => {
      if (this.#stringIsKey) this.#key += ch;
      else if (this.#capturing) out += ch;
    };
    for (const c of chunk) {
      if (this.#inString) {
        if (this.#unicode !== null) {
          this.#unicode += c;
          if (this.#unicode.length === 4) {
            const code = Number.parseInt(this.#unicode, 16);
            this.#unicode = null;
            if (!Number.isNaN(code)) put(String.fromCharCode(code));
          }
        } else if (this.#escape) {
          this.#escape = false;
          if (c === 'u') this.#unicode = '';
          else put(ESCAPES[c] ?? c);
        } else if (c === '\\') this.#escape = true;
        else if (c === '"') this.#closeString();
        else put(c);
        continue;
      }
      if (c === '{' || c === '[') this.#depth++;
      else if (c === '}' || c === ']') this.#depth--;
      else if (c === '"') this.#openString();
      else if (this.#depth === 1 && c === ':') this.#expectValue = true;
      else if (this.#depth === 1 && c === ',') {
        this.#expectValue = false;
        this.#lastKey = null;
      }
    }
    // Never end a piece inside a surrogate pair: hold its first half for the next one.
    const last = out.charCodeAt(out.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      this.#carry = out.slice(-1);
      out = out.slice(0, -1);
    }
    this.length += out.length;
    return out;
  }

  #openString(): void {
    this.#inString = true;
    this.#stringIsKey = this.#depth === 1 && !this.#expectValue;
    if (this.#stringIsKey) this.#key = '';
    this.#capturing =
      this.#depth === 1 && this.#expectValue && this.#lastKey === 'response' && !this.#finished;
  }

  #closeString(): void {
    this.#inString = false;
    if (this.#stringIsKey) {
      this.#lastKey = this.#key;
      this.#stringIsKey = false;
      return;
    }
    if (this.#capturing) {
      this.#capturing = false;
      this.#finished = true;
    }
    if (this.#depth === 1) this.#expectValue = false;
  }
}
