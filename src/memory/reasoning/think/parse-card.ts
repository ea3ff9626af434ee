/**
 * Parses a think_card `card` argument — a JSON object, a JSON object string, or the v0 DSL of
 * `key: value` lines — into a normalized Card. Unknown keys are kept under `meta`.
 */
import { invalidInput } from '../../../core/errors.ts';
import {
  labelError,
  MAX_STATUS,
  MAX_TEXT,
  MAX_TITLE,
  metaError,
  nodeIdError,
  normalizeTags,
  textError,
} from '../graph/keys.ts';
import { type Card, isCardType, unknownType } from './cards.ts';

const KNOWN = new Set(['id', 'card_id', 'type', 'title', 'text', 'status', 'tags', 'meta']);
const DSL_LINE = /^([A-Za-z_][A-Za-z0-9_-]*)\s*:\s?(.*)$/;
export const MAX_CARD_CHARS = 60_000;

/** `key: value` lines; a line that is not `key:` continues the previous value (multi-line text). */
export function parseDsl(src: string): Record<string, unknown> {
  const out: Record<string, string> = {};
  let current: string | undefined;
  src.split(/\r?\n/).forEach((line, i) => {
    const m = DSL_LINE.exec(line);
    if (m) {
      current = m[1]!.toLowerCase();
      if (current in out)
        throw invalidInput(`card line ${i + 1}: key "${current}" given twice`, { field: 'card' });
      out[current] = m[2]!.trim();
    } else if (current !== undefined) {
      out[current] = `${out[current]}\n${line}`;
    } else if (line.trim() !== '') {
      throw invalidInput(
        `card line ${i + 1} is not "key: value"`,
        { field: 'card' },
        'write the card as key: value lines, or as a JSON object',
      );
    }
  });
  for (const k of Object.keys(out)) out[k] = out[k]!.trimEnd();
  if (typeof out.tags === 'string') {
    return {
      ...out,
      tags: out.tags
        .split(',')
        .map((t) => t.trim())
        .filter((t) => t !== ''),
    };
  }
  return out;
}

function toObject(card: unknown): Record<string, unknown> {
  if (typeof card === 'string') {
    if (card.length > MAX_CARD_CHARS)
      throw invalidInput(`card must be at most ${MAX_CARD_CHARS} characters`, { field: 'card' });
    if (card.trimStart().startsWith('{')) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(card);
      } catch (e) {
        throw invalidInput(`card is not valid JSON: ${(e as Error).message}`, { field: 'card' });
      }
      return toObject(parsed);
    }
    return parseDsl(card);
  }
  if (card === null || typeof card !== 'object' || Array.isArray(card)) {
    throw invalidInput('card must be a JSON object, a JSON object string, or "key: value" lines', {
      field: 'card',
    });
  }
  return card as Record<string, unknown>;
}

function check(err: string | undefined): void {
  if (err) throw invalidInput(`card.${err}`, { field: 'card' });
}

/** Normalizes and validates a card: id, a supported type, and a non-empty title or text are required. */
export function parseCard(raw: unknown): Card {
  const o = toObject(raw);
  if (o.id !== undefined && o.card_id !== undefined && o.id !== o.card_id) {
    throw invalidInput('card.id and card.card_id differ', { field: 'card' });
  }
  const id = o.id ?? o.card_id;
  if (id === undefined)
    throw invalidInput('card.id is required', { field: 'card' }, 'give the card a stable id, e.g. "H-1"');
  check(nodeIdError(id, 'id'));
  if (o.type === undefined || o.type === '') {
    throw invalidInput(
      'card.type is required',
      { field: 'card' },
      'get a skeleton with branchmind_think_template',
    );
  }
  if (!isCardType(o.type)) throw unknownType(o.type);
  const title = typeof o.title === 'string' ? o.title.trim() : o.title;
  const text = typeof o.text === 'string' ? o.text.trim() : o.text;
  if (title !== undefined) check(textError(title, 'title', MAX_TITLE));
  if (text !== undefined) check(textError(text, 'text', MAX_TEXT));
  if (!title && !text) throw invalidInput('card needs a non-empty title or text', { field: 'card' });
  const status = o.status === undefined || o.status === '' ? 'open' : o.status;
  check(labelError(status, 'status', MAX_STATUS));
  const tags = normalizeTags(o.tags ?? [], 'tags');
  if (!tags.ok) check(tags.error);
  if (o.meta !== undefined) check(metaError(o.meta, 'meta'));
  const meta: Record<string, unknown> = { ...((o.meta as Record<string, unknown> | undefined) ?? {}) };
  for (const [k, v] of Object.entries(o)) if (!KNOWN.has(k)) meta[k] = v;
  if (Object.keys(meta).length > 0) check(metaError(meta, 'meta'));

  const card: Card = {
    id: id as string,
    type: o.type,
    status: status as string,
    tags: tags.ok ? tags.value : [],
  };
  if (title) card.title = title as string;
  if (text) card.text = text as string;
  if (Object.keys(meta).length > 0) card.meta = meta;
  return card;
}
