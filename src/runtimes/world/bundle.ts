/**
 * Scenario bundles: a directory of JSON documents that refer to each other by relative path
 * (`{ "ref": "sources/weather.json" }`, resolved against the referring file). `applyBundle` puts
 * every document, deepest first, as the kind its referring field names, and assembles
 * `scenario.json`. `{ "builtin": "WorldPatch" }` names the kernel's WorldPatch schema.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { NoemaError } from '../../core/errors.ts';
import { setOwn } from '../../core/own.ts';
import type { Store } from '../../store/store.ts';
import { assembleScenario } from './assemble.ts';
import {
  type ComponentKind,
  putCognitionProfile,
  putCognitionWorkflow,
  putEntity,
  putEnvironment,
  putJsonSchema,
  putResponseSource,
  putWorldPatchSchema,
} from './components.ts';

type Obj = Record<string, unknown>;

function kindOf(key: string, parent: string | null): ComponentKind | null {
  if (key.endsWith('source_ref')) return 'response_source';
  if (key.endsWith('schema_ref')) return 'json_schema';
  if (key === 'workflow_ref') return 'cognition_workflow';
  if (key === 'cognition_profile_ref') return 'cognition_profile';
  if (parent === 'environments') return 'environment';
  if (parent === 'entities') return 'entity';
  return null;
}

function readJson(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new NoemaError('BUNDLE_INVALID', `cannot read ${path}: ${(err as Error).message}`, {
      details: { path },
    });
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new NoemaError('BUNDLE_INVALID', `${path} is not JSON: ${(err as Error).message}`, {
      details: { path },
    });
  }
}

export interface AppliedBundle {
  scenario_hash: string;
  /** Every document put, by path relative to the bundle. */
  documents: Array<{ path: string; kind: ComponentKind | 'scenario'; hash: string }>;
}

export async function applyBundle(store: Store, dir: string): Promise<AppliedBundle> {
  const root = resolve(dir);
  const done = new Map<string, string>();
  const documents: AppliedBundle['documents'] = [];
  const put = async (kind: ComponentKind, doc: unknown): Promise<string> => {
    switch (kind) {
      case 'json_schema':
        return (await putJsonSchema(store, doc as Obj)).hash;
      case 'response_source':
        return (await putResponseSource(store, doc)).hash;
      case 'cognition_workflow':
        return (await putCognitionWorkflow(store, doc)).hash;
      case 'cognition_profile':
        return (await putCognitionProfile(store, doc)).hash;
      case 'environment':
        return (await putEnvironment(store, doc)).hash;
      case 'entity':
        return (await putEntity(store, doc)).hash;
      default:
        throw new NoemaError('BUNDLE_INVALID', `a bundle cannot reference a ${kind} by path`);
    }
  };
  const resolveRefs = async (
    value: unknown,
    base: string,
    key: string | null,
    parent: string | null,
  ): Promise<unknown> => {
    if (Array.isArray(value)) {
      const items: unknown[] = [];
      for (const v of value) items.push(await resolveRefs(v, base, null, key));
      return items;
    }
    if (value === null || typeof value !== 'object') return value;
    const obj = value as Obj;
    if (obj.builtin === 'WorldPatch') return { hash: (await putWorldPatchSchema(store)).hash };
    if (typeof obj.ref === 'string' && Object.keys(obj).length === 1) {
      const kind = key ? kindOf(key, null) : kindOf('', parent);
      if (!kind)
        throw new NoemaError(
          'BUNDLE_INVALID',
          `cannot tell what kind of component "${obj.ref}" is from where it is referenced`,
          {
            details: { ref: obj.ref, field: key ?? parent },
          },
        );
      const path = resolve(base, obj.ref);
      if (!path.startsWith(`${root}/`))
        throw new NoemaError('BUNDLE_INVALID', `"${obj.ref}" points outside the bundle`, {
          details: { ref: obj.ref },
        });
      let hash = done.get(path);
      if (!hash) {
        const doc = await resolveRefs(readJson(path), dirname(path), null, null);
        hash = await put(kind, doc);
        done.set(path, hash);
        documents.push({ path: path.slice(root.length + 1), kind, hash });
      }
      return { hash };
    }
    const out: Obj = {};
    for (const [k, v] of Object.entries(obj)) setOwn(out, k, await resolveRefs(v, base, k, key));
    return out;
  };
  const scenarioPath = join(root, 'scenario.json');
  const scenario = await resolveRefs(readJson(scenarioPath), root, null, null);
  const { hash } = await assembleScenario(store, scenario);
  documents.push({ path: 'scenario.json', kind: 'scenario', hash });
  return { scenario_hash: hash, documents };
}
