/**
 * A record shown as indented JSON in which every field that names another record is a link: ids
 * (`attempt_id`, `run_id`, `llm_call_id`, …), content hashes (`workflow_hash`, `source_hash`, …) and
 * catalog paths (`/<kind>/…` of a registered kind — not JSON pointers such as `/ambient/weather`,
 * which look alike). Everything is escaped; links are built only from the field name and the value.
 */
import { defaultCatalog } from '../catalog/registry.ts';
import { h, type Markup } from './render.ts';

const e = encodeURIComponent;
const BY_FIELD: Record<string, (v: string) => string> = {
  attempt_id: (v) => `/attempts/${e(v)}`,
  run_id: (v) => `/runs/${e(v)}`,
  source_invocation_id: (v) => `/source-invocations/${e(v)}`,
  parent_source_invocation_id: (v) => `/source-invocations/${e(v)}`,
  last_source_invocation_id: (v) => `/source-invocations/${e(v)}`,
  llm_call_id: (v) => `/llm-calls/${e(v)}`,
  contract_id: (v) => `/contracts/${e(v)}`,
  session_id: (v) => `/sessions/${e(v)}`,
  world_slug: (v) => `/worlds/${e(v)}`,
  parent_world_slug: (v) => `/worlds/${e(v)}`,
  flowchart_id: (v) => `/flowcharts/${e(v)}`,
  flowchart_run_id: (v) => `/flowchart-runs/${e(v)}`,
  workflow_hash: (v) => `/cognition-workflows/hash/${e(v)}`,
  source_hash: (v) => `/response-sources/hash/${e(v)}`,
  llm_source_hash: (v) => `/response-sources/hash/${e(v)}`,
  output_schema_hash: (v) => `/json-schemas/hash/${e(v)}`,
  input_schema_hash: (v) => `/json-schemas/hash/${e(v)}`,
  scenario_hash: (v) => `/scenarios/hash/${e(v)}`,
  graph_hash: (v) => `/graphs/hash/${e(v)}`,
  agent_hash: (v) => `/agents/hash/${e(v)}`,
};
const PATH = /^\/([a-z-]+)\/[A-Za-z0-9._~%/-]+$/;

function isCatalogPath(value: string): boolean {
  const kind = PATH.exec(value)?.[1];
  return kind !== undefined && defaultCatalog.get(kind) !== undefined;
}

function render(value: unknown, indent: string, key?: string): Markup {
  if (typeof value === 'string') {
    const href = key && BY_FIELD[key] ? BY_FIELD[key](value) : isCatalogPath(value) ? value : null;
    const text = JSON.stringify(value);
    return href ? h`<a href="${href}">${text}</a>` : h`${text}`;
  }
  if (Array.isArray(value)) {
    if (!value.length) return h`[]`;
    const inner = `${indent}  `;
    return h`[\n${value.map((v, i) => h`${inner}${render(v, inner)}${i < value.length - 1 ? ',' : ''}\n`)}${indent}]`;
  }
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (!entries.length) return h`{}`;
    const inner = `${indent}  `;
    return h`{\n${entries.map(
      ([k, v], i) =>
        h`${inner}${JSON.stringify(k)}: ${render(v, inner, k)}${i < entries.length - 1 ? ',' : ''}\n`,
    )}${indent}}`;
  }
  return h`${JSON.stringify(value ?? null)}`;
}

export function linkedJson(value: unknown): Markup {
  return h`<pre class="json" tabindex="0">${render(value, '')}</pre>`;
}
