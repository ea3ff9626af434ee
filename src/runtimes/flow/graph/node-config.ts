/**
 * Normalization of one node's config, shared by graph save (strict: a structural violation is a
 * problem the caller answers with 400) and startup migration of legacy configs (lenient: old shapes
 * are rewritten to the canonical ones, as seed 003's "Hard-cut migration behavior" says).
 */
import type { Json } from '../../../engine/index.ts';
import {
  DEFAULT_RETENTION_MAX_COUNT,
  DEFAULT_RETENTION_TTL_SECONDS,
  DEFAULT_RETRY_COUNT,
  type FlowNodeType,
  MAX_RETRY_COUNT,
  MEMORY_ACTIONS,
  MILESTONE_ACTIONS,
  NODE_MODES,
  type NodeMode,
  PLAN_STORE_MODES,
  RETENTION_MODES,
  SYSTEM_MCP_KEY,
} from '../types.ts';

export interface ConfigProblem {
  /** Relative to the node's config, e.g. `/action`. */
  path: string;
  message: string;
}

type Config = Record<string, Json>;

const isBlank = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

/** `LLM-Guided`, `llm guided`, `llm` → `llm_guided`; null for anything not a mode. */
export function canonicalMode(v: unknown): NodeMode | null {
  if (typeof v !== 'string') return null;
  const s = v
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  if (s === 'llm') return 'llm_guided';
  return (NODE_MODES as readonly string[]).includes(s) ? (s as NodeMode) : null;
}

function canonicalWord<T extends string>(v: unknown, allowed: readonly T[]): T | null {
  if (typeof v !== 'string') return null;
  const s = v
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  return (allowed as readonly string[]).includes(s) ? (s as T) : null;
}

function toInt(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return Math.trunc(v);
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Math.trunc(Number(v));
  return null;
}

function toBool(v: unknown): boolean | null {
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === 1) return true;
  if (v === 'false' || v === 0) return false;
  return null;
}

/** `retry_count` (default 1, clamped 0..5) and `fallback_enabled` (default true). */
function failureControls(c: Config, problems: ConfigProblem[], strict: boolean): void {
  if (isBlank(c.retry_count)) c.retry_count = DEFAULT_RETRY_COUNT;
  else {
    const n = toInt(c.retry_count);
    if (n === null) {
      if (strict) problems.push({ path: '/retry_count', message: 'retry_count must be an integer (0..5)' });
      c.retry_count = DEFAULT_RETRY_COUNT;
    } else c.retry_count = Math.min(MAX_RETRY_COUNT, Math.max(0, n));
  }
  if (isBlank(c.fallback_enabled)) c.fallback_enabled = true;
  else {
    const b = toBool(c.fallback_enabled);
    if (b === null) {
      if (strict) problems.push({ path: '/fallback_enabled', message: 'fallback_enabled must be a boolean' });
      c.fallback_enabled = true;
    } else c.fallback_enabled = b;
  }
}

/** `retention_mode` (default `forever`), `retention_ttl_seconds` (3600), `retention_max_count` (25). */
function retentionControls(c: Config, problems: ConfigProblem[], strict: boolean): void {
  if (isBlank(c.retention_mode)) c.retention_mode = 'forever';
  else {
    const m = canonicalWord(c.retention_mode, RETENTION_MODES);
    if (!m) {
      if (strict)
        problems.push({
          path: '/retention_mode',
          message: `retention_mode must be one of ${RETENTION_MODES.join(', ')}`,
        });
      c.retention_mode = 'forever';
    } else c.retention_mode = m;
  }
  const positive = (key: string, dflt: number) => {
    if (isBlank(c[key])) c[key] = dflt;
    else {
      const n = toInt(c[key]);
      if (n === null || n < 1) {
        if (strict) problems.push({ path: `/${key}`, message: `${key} must be a positive integer` });
        c[key] = dflt;
      } else c[key] = n;
    }
  };
  positive('retention_ttl_seconds', DEFAULT_RETENTION_TTL_SECONDS);
  positive('retention_max_count', DEFAULT_RETENTION_MAX_COUNT);
}

function optionalString(c: Config, key: string, problems: ConfigProblem[]): void {
  if (c[key] === undefined || c[key] === null) {
    delete c[key];
    return;
  }
  if (typeof c[key] !== 'string') problems.push({ path: `/${key}`, message: `${key} must be a string` });
}

function requiredString(c: Config, key: string, problems: ConfigProblem[]): void {
  if (typeof c[key] !== 'string' || (c[key] as string).trim() === '')
    problems.push({ path: `/${key}`, message: `${key} is required (a non-empty string)` });
}

function normalizeMemory(c: Config, problems: ConfigProblem[], strict: boolean): void {
  const action = canonicalWord(c.action, MEMORY_ACTIONS);
  if (action) c.action = action;
  else if (strict)
    problems.push({ path: '/action', message: 'memory nodes require config.action: add | retrieve' });
  const mode = canonicalMode(c.mode);
  if (mode) c.mode = mode;
  else if (isBlank(c.mode) || !strict) c.mode = 'llm_guided';
  else
    problems.push({
      path: '/mode',
      message: `invalid memory mode "${String(c.mode)}": use llm_guided | deterministic`,
    });
  failureControls(c, problems, strict);
  retentionControls(c, problems, strict);
  optionalString(c, 'additive_prompt', problems);
  // The binding is system-managed: whatever was sent, a saved memory node is bound to llmctl-mcp.
  // Startup migration leaves stored keys alone: the runtime refuses a non-system set (seed 003).
  if (strict) c.mcp_server_keys = [SYSTEM_MCP_KEY];
}

/** Legacy plan `action` values map to store modes (seed 003, hard-cut migration). */
const LEGACY_PLAN_ACTIONS: Record<string, string> = {
  create_or_update_plan: 'append',
  complete_plan_item: 'update',
};

function normalizePlan(c: Config, problems: ConfigProblem[], strict: boolean): void {
  const mode = canonicalMode(c.mode);
  if (mode) c.mode = mode;
  else if (strict)
    problems.push({ path: '/mode', message: 'plan nodes require config.mode: llm_guided | deterministic' });
  else c.mode = 'deterministic';
  const storeMode = canonicalWord(c.store_mode, PLAN_STORE_MODES);
  if (storeMode) c.store_mode = storeMode;
  else if (strict)
    problems.push({
      path: '/store_mode',
      message: 'plan nodes require config.store_mode: append | replace | update',
    });
  else {
    const legacy = typeof c.action === 'string' ? LEGACY_PLAN_ACTIONS[c.action.trim()] : undefined;
    c.store_mode = legacy ?? 'append';
  }
  if (!strict) delete c.action;
  failureControls(c, problems, strict);
  retentionControls(c, problems, strict);
  optionalString(c, 'additive_prompt', problems);
  optionalString(c, 'patch_source_path', problems);
  optionalString(c, 'llm_transform_prompt', problems);
  if (
    typeof c.patch_source_path === 'string' &&
    c.patch_source_path !== '' &&
    !c.patch_source_path.startsWith('/')
  )
    problems.push({
      path: '/patch_source_path',
      message: 'patch_source_path is a JSON pointer (starts with "/")',
    });
  if (c.patch !== undefined && c.patch !== null && (typeof c.patch !== 'object' || Array.isArray(c.patch)))
    problems.push({ path: '/patch', message: 'patch must be an object ({ stages: [...] })' });
  if (c.patch === null) delete c.patch;
}

function normalizeMilestone(c: Config, problems: ConfigProblem[], strict: boolean): void {
  const action = canonicalWord(c.action, MILESTONE_ACTIONS);
  if (action) c.action = action;
  else if (strict)
    problems.push({
      path: '/action',
      message: 'milestone nodes require config.action: create_or_update | mark_complete',
    });
  optionalString(c, 'additive_prompt', problems);
  retentionControls(c, problems, strict);
}

/**
 * Normalizes a node's config in place and returns the problems found. `strict` (graph save) reports
 * every structural violation; lenient (legacy migration) rewrites old shapes to canonical ones.
 */
export function normalizeNodeConfig(
  nodeType: FlowNodeType,
  config: Config,
  strict: boolean,
): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  switch (nodeType) {
    case 'memory':
      normalizeMemory(config, problems, strict);
      break;
    case 'plan':
      normalizePlan(config, problems, strict);
      break;
    case 'milestone':
      normalizeMilestone(config, problems, strict);
      break;
    case 'llm':
      requiredString(config, 'prompt', problems);
      break;
    case 'decision':
      retentionControls(config, problems, strict);
      break;
    default:
      break;
  }
  return problems;
}
