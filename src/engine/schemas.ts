/**
 * Lazy access to core's schema registry. Ajv costs ~13 MB resident, so an engine process loads it
 * on the first graph, suspension or resume that carries a schema, not at import.
 */
import type { SchemaRegistry } from '../core/schema-registry.ts';

let loaded: SchemaRegistry | undefined;

export async function loadSchemas(): Promise<SchemaRegistry> {
  loaded ??= (await import('../core/schema-registry.ts')).schemas;
  return loaded;
}
