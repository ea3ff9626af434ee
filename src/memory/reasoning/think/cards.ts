/**
 * Thinking cards (v0): the supported card types and their deterministic templates, so agents
 * never guess which fields a card needs.
 */
import { NoemaError } from '../../../core/errors.ts';

export const CARD_TYPES = [
  'frame',
  'hypothesis',
  'question',
  'test',
  'evidence',
  'decision',
  'note',
  'update',
] as const;
export type CardType = (typeof CARD_TYPES)[number];

export function isCardType(t: unknown): t is CardType {
  return typeof t === 'string' && (CARD_TYPES as readonly string[]).includes(t);
}

export function unknownType(type: unknown): NoemaError {
  return new NoemaError('UNKNOWN_TYPE', `unknown card type ${JSON.stringify(type)}`, {
    details: { type, supported_types: [...CARD_TYPES] },
    hint: `use one of the supported_types: ${CARD_TYPES.join(', ')}`,
    status: 400,
  });
}

/** A normalized card: what think_card stores as a graph node and a trace entry. */
export interface Card {
  id: string;
  type: CardType;
  title?: string;
  text?: string;
  status: string;
  tags: string[];
  meta?: Record<string, unknown>;
}

const PURPOSE: Record<CardType, string> = {
  frame: 'The problem as you currently understand it: goal, constraints, scope.',
  hypothesis: 'A claim you believe may be true and intend to test.',
  question: 'Something you need to know; link answers to it with supports.',
  test: 'How you will check a hypothesis; set supports to the hypothesis id.',
  evidence: 'An observed fact; set supports (or blocks) to the cards it bears on.',
  decision: 'A choice made and why; set supports to the cards it rests on.',
  note: 'Anything worth keeping that is not one of the other types.',
  update: 'A change of status or understanding of earlier cards.',
};

/** The skeleton for `type`: every card field with its default; fill id and a title or text. */
export function cardTemplate(type: CardType): Record<string, unknown> {
  return { id: '', type, title: '', text: '', status: 'open', tags: [], meta: {} };
}

/** What a card of `type` is for (one sentence, shown next to the template). */
export function cardPurpose(type: CardType): string {
  return PURPOSE[type];
}
