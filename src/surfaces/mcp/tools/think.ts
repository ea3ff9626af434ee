/** MCP tools for thinking cards: template, card (trace + graph in one transaction), context, next. */
import { CARD_TYPES, thinkCard, thinkContext, thinkNext, thinkTemplate } from '../../../memory/index.ts';
import type { McpToolDef } from '../tool.ts';
import { branchName, doc, maxChars, objectSchema, target, workspace } from './schema-parts.ts';

type In = Record<string, unknown>;
const as = <T>(input: In): T => input as T;
const out = <T>(p: Promise<T>): Promise<In> => p as unknown as Promise<In>;

const cardIds = (description: string) =>
  ({
    type: 'array',
    maxItems: 50,
    items: { type: 'string', minLength: 1, maxLength: 256 },
    description,
  }) as const;

const readRef = {
  workspace,
  target,
  branch: branchName('Branch to read (default: the target canonical branch, or the workspace checkout).'),
  graph_doc: doc('Graph document holding the cards. Not with target.'),
};

export const thinkTools: McpToolDef[] = [
  {
    name: 'branchmind_think_template',
    description: `Returns a deterministic card skeleton for a type, so agents never guess fields. Supported types: ${CARD_TYPES.join(', ')}; any other is UNKNOWN_TYPE.`,
    inputSchema: objectSchema(
      {
        workspace,
        type: {
          type: 'string',
          minLength: 1,
          maxLength: 64,
          description: `Card type: one of ${CARD_TYPES.join(', ')}.`,
        },
        max_chars: maxChars,
      },
      ['workspace', 'type'],
    ),
    handler: (input, { store }) => out(thinkTemplate(store, as(input))),
  },
  {
    name: 'branchmind_think_card',
    description:
      'Commits a thinking card atomically: a note entry in the trace doc (chronology) and a typed node plus supports/blocks edges in the graph doc (structure). An identical repeated card is a no-op; a changed card with the same id updates the node. Give target (optionally with branch), or trace_doc and graph_doc (branch defaults to the checkout).',
    inputSchema: objectSchema(
      {
        workspace,
        target,
        branch: branchName(
          'Branch to write to (with target: overrides the canonical branch, e.g. a what-if branch).',
        ),
        trace_doc: doc('Trace document for the card entry. Not with target.'),
        graph_doc: doc('Graph document for the card node. Not with target.'),
        card: {
          type: ['object', 'string'],
          description:
            'The card: a JSON object, a JSON object string, or "key: value" lines. Fields: id (or card_id, required), type (required), title and/or text (one non-empty), status (default "open"), tags, meta; unknown keys are kept under meta.',
        },
        supports: cardIds('Ids of cards this card supports (edges card --supports--> id).'),
        blocks: cardIds('Ids of cards this card blocks (edges card --blocks--> id).'),
      },
      ['workspace', 'card'],
    ),
    handler: (input, { store }) => out(thinkCard(store, as(input))),
  },
  {
    name: 'branchmind_think_context',
    description:
      'Bounded thinking-context slice for fast resumption: card nodes (supported types only) newest first, with stats.cards and stats.by_type. max_chars drops the oldest cards first.',
    inputSchema: objectSchema(
      {
        ...readRef,
        limit_cards: {
          type: 'integer',
          minimum: 1,
          maximum: 200,
          description: 'Most cards to return (default 30).',
        },
        max_chars: maxChars,
      },
      ['workspace'],
    ),
    handler: (input, { store }) => out(thinkContext(store, as(input))),
  },
  {
    name: 'branchmind_think_next',
    description:
      'The best next card to work on, with a reason and a suggested next action: the most recent open question/hypothesis with no test or evidence linked to it, else the most recent open test without evidence, else the most recent open card.',
    inputSchema: objectSchema({ ...readRef, max_chars: maxChars }, ['workspace']),
    handler: (input, { store }) => out(thinkNext(store, as(input))),
  },
];
