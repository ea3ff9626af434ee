/** branchmind_think_template: a deterministic card skeleton for a supported type. */
import type { Queryable } from '../../../store/store.ts';
import { assertFits, maxCharsArg } from '../graph/args.ts';
import { requireWorkspace } from '../workspaces.ts';
import { CARD_TYPES, type CardType, cardPurpose, cardTemplate, isCardType, unknownType } from './cards.ts';

export interface ThinkTemplateOutput {
  type: CardType;
  supported_types: CardType[];
  template: Record<string, unknown>;
  /** Fields that must be non-empty for branchmind_think_card to accept the card. */
  required: string[];
  purpose: string;
  truncated: boolean;
}

export async function thinkTemplate(
  q: Queryable,
  input: { workspace: string; type: unknown; max_chars?: unknown },
): Promise<ThinkTemplateOutput> {
  const maxChars = maxCharsArg(input.max_chars);
  await requireWorkspace(q, input.workspace);
  if (!isCardType(input.type)) throw unknownType(input.type);
  const out: ThinkTemplateOutput = {
    type: input.type,
    supported_types: [...CARD_TYPES],
    template: cardTemplate(input.type),
    required: ['id', 'type', 'title or text'],
    purpose: cardPurpose(input.type),
    truncated: false,
  };
  // A template is one indivisible skeleton: cutting it would defeat its purpose.
  return assertFits(out, maxChars, 'the template');
}
