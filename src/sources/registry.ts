/**
 * The registry: `interface.name` → implementation. Adding a kind is one folder and one line
 * here; nothing else changes.
 */
import { NoemaError } from '../core/errors.ts';
import { httpJsonSource } from './http-json/source.ts';
import { llmChatCompletionsSource } from './llm/source.ts';
import { mcpToolSource } from './mcp-tool/source.ts';
import type { ResponseSource } from './source.ts';

const implementations = new Map<string, ResponseSource>(
  [llmChatCompletionsSource, httpJsonSource, mcpToolSource].map((s) => [s.name, s]),
);

export function responseSourceFor(name: string): ResponseSource {
  const impl = implementations.get(name);
  if (!impl) {
    throw new NoemaError('UNKNOWN_SOURCE_INTERFACE', `no response source implements interface "${name}"`, {
      status: 400,
      details: { name, known: [...implementations.keys()] },
      hint: `use one of: ${[...implementations.keys()].join(', ')}`,
    });
  }
  return impl;
}

export function sourceInterfaceNames(): string[] {
  return [...implementations.keys()];
}
