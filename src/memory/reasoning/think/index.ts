// Public API of thinking tools: cards as explicit artifacts in the trace log and the typed graph.
export { type ThinkCardInput, type ThinkCardOutput, thinkCard } from './card.ts';
export { CARD_TYPES, type Card, type CardType } from './cards.ts';
export { type ThinkContextOutput, thinkContext } from './context.ts';
export { type ThinkNextOutput, thinkNext } from './next.ts';
export { parseCard } from './parse-card.ts';
export { type ThinkTemplateOutput, thinkTemplate } from './template.ts';
