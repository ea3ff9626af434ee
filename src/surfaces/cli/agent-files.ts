/**
 * Agent definitions as files: any `llm_source_ref`, tool `source_ref` or tool `server_ref` written
 * as `{ "file": "<path relative to the definition>" }` is a response source or MCP server config
 * file, stored first and replaced by its hash — so examples stay data that refer to each other.
 */
import { dirname, resolve } from 'node:path';
import type { Store } from '../../store/store.ts';
import { readJsonFile } from './files.ts';

type Obj = Record<string, unknown>;
const isFileRef = (v: unknown): v is { file: string } =>
  Boolean(v) && typeof v === 'object' && typeof (v as Obj).file === 'string';

export async function resolveAgentFile(store: Store, path: string): Promise<Obj> {
  const { putMcpServer, putResponseSource } = await import('../../sources/index.ts');
  const base = dirname(resolve(path));
  const doc = readJsonFile(path, 'agent definition') as Obj;
  const source = async (ref: unknown) =>
    isFileRef(ref)
      ? {
          hash: (await putResponseSource(store, readJsonFile(resolve(base, ref.file), 'response source')))
            .hash,
        }
      : ref;
  const server = async (ref: unknown) =>
    isFileRef(ref)
      ? { hash: (await putMcpServer(store, readJsonFile(resolve(base, ref.file), 'MCP server config'))).hash }
      : ref;
  doc.llm_source_ref = await source(doc.llm_source_ref);
  for (const key of ['emotion', 'synthesis']) {
    const part = doc[key] as Obj | undefined;
    if (part && 'llm_source_ref' in part) part.llm_source_ref = await source(part.llm_source_ref);
  }
  if (Array.isArray(doc.tools)) {
    for (const t of doc.tools as Obj[]) {
      if (t && 'source_ref' in t) t.source_ref = await source(t.source_ref);
      if (t && 'server_ref' in t) t.server_ref = await server(t.server_ref);
    }
  }
  return doc;
}
