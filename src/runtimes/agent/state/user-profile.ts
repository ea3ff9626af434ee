/**
 * UserProfile (seed 002): situated memory of one user with every bound, `compressForInjection`
 * (max 800) and the update/synthesis rules. Collections the seed leaves unbounded get bounds too
 * ("strict limits on all collections"): preferences 20, interests 15, constraints 10.
 */
import { addUnique, cut, type Entry, entriesToObject, fmt, keepLast, setEntry } from './bounded.ts';

export const PROFILE_BOUNDS = {
  preferences: 20,
  goals: 10,
  expertise_areas: 15,
  projects: 10,
  interests: 15,
  constraints: 10,
  success_patterns: 5,
  failure_patterns: 5,
} as const;

export interface UserProfile {
  user_id: string;
  preferences: Entry[];
  goals: string[];
  expertise_areas: string[];
  communication_style: string;
  projects: Entry<string>[];
  interests: string[];
  constraints: string[];
  success_patterns: string[];
  failure_patterns: string[];
  created_at: string;
  last_updated: string;
  interaction_count: number;
  synthesis_version: number;
}

/** What insight extraction returns (every field optional). */
export interface InteractionInsights {
  preferences?: Record<string, unknown>;
  goals?: string[];
  expertise?: string[];
  communication_style?: string;
  project_context?: Record<string, string>;
  success_pattern?: string;
  failure_pattern?: string;
}

/** What a synthesis call returns: replacement values for the fields it names. */
export interface ProfileSynthesis {
  preferences?: Record<string, unknown>;
  goals?: string[];
  expertise_areas?: string[];
  communication_style?: string;
  projects?: Record<string, string>;
  interests?: string[];
  constraints?: string[];
  success_patterns?: string[];
  failure_patterns?: string[];
}

export function newUserProfile(user_id: string, now = new Date().toISOString()): UserProfile {
  return {
    user_id,
    preferences: [],
    goals: [],
    expertise_areas: [],
    communication_style: '',
    projects: [],
    interests: [],
    constraints: [],
    success_patterns: [],
    failure_patterns: [],
    created_at: now,
    last_updated: now,
    interaction_count: 0,
    synthesis_version: 1,
  };
}

const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x.length > 0) : [];
const record = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

function setAll<V>(entries: Entry<V>[], values: Record<string, V>, max: number): Entry<V>[] {
  let out = entries;
  for (const [k, v] of Object.entries(values)) out = setEntry(out, k, v, max);
  return out;
}

function addPattern(list: string[], pattern: unknown): string[] {
  if (typeof pattern !== 'string' || !pattern || list.includes(pattern)) return list;
  return keepLast([...list, pattern], 5);
}

/** The seed's `update_from_interaction`: counts the interaction and folds the insights in, bounded. */
export function updateFromInteraction(
  p: UserProfile,
  insights: InteractionInsights,
  now = new Date().toISOString(),
): UserProfile {
  const b = PROFILE_BOUNDS;
  const projects = Object.fromEntries(
    Object.entries(record(insights.project_context)).filter(([, v]) => typeof v === 'string'),
  ) as Record<string, string>;
  return {
    ...p,
    interaction_count: p.interaction_count + 1,
    last_updated: now,
    preferences: setAll(p.preferences, record(insights.preferences), b.preferences),
    goals: addUnique(p.goals, strings(insights.goals), b.goals),
    expertise_areas: addUnique(p.expertise_areas, strings(insights.expertise), b.expertise_areas),
    communication_style:
      typeof insights.communication_style === 'string' && insights.communication_style
        ? insights.communication_style
        : p.communication_style,
    projects: setAll(p.projects, projects, b.projects),
    success_patterns: addPattern(p.success_patterns, insights.success_pattern),
    failure_patterns: addPattern(p.failure_patterns, insights.failure_pattern),
  };
}

/** The seed's `_apply_synthesis_to_profile` (non-empty fields replace), then bounds and bumps the version. */
export function applySynthesis(
  p: UserProfile,
  s: ProfileSynthesis,
  now = new Date().toISOString(),
): UserProfile {
  const b = PROFILE_BOUNDS;
  const list = (v: unknown, cur: string[], max: number) => {
    const items = strings(v);
    return items.length > 0 ? keepLast([...new Set(items)], max) : cur;
  };
  const map = <V>(v: unknown, cur: Entry<V>[], max: number) => {
    const r = record(v);
    return Object.keys(r).length > 0 ? setAll([], r as Record<string, V>, max) : cur;
  };
  return {
    ...p,
    last_updated: now,
    preferences: map(s.preferences, p.preferences, b.preferences),
    goals: list(s.goals, p.goals, b.goals),
    expertise_areas: list(s.expertise_areas, p.expertise_areas, b.expertise_areas),
    communication_style:
      typeof s.communication_style === 'string' && s.communication_style
        ? s.communication_style
        : p.communication_style,
    projects: map(s.projects, p.projects, b.projects),
    interests: list(s.interests, p.interests, b.interests),
    constraints: list(s.constraints, p.constraints, b.constraints),
    success_patterns: list(s.success_patterns, p.success_patterns, b.success_patterns),
    failure_patterns: list(s.failure_patterns, p.failure_patterns, b.failure_patterns),
    synthesis_version: p.synthesis_version + 1,
  };
}

/** The seed's `compress_for_injection`: the situated context injected as `USER CONTEXT:`. */
export function compressForInjection(p: UserProfile, maxTokens = 800): string {
  const sections: string[] = [];
  if (p.communication_style) sections.push(`COMMUNICATION: ${p.communication_style}`);
  if (p.goals.length > 0) sections.push(`CURRENT GOALS: ${p.goals.slice(-3).join('; ')}`);
  if (p.preferences.length > 0)
    sections.push(
      `PREFERENCES: ${p.preferences
        .slice(-5)
        .map((e) => `${e.key}: ${fmt(e.value)}`)
        .join(', ')}`,
    );
  if (p.projects.length > 0)
    sections.push(
      `ACTIVE PROJECTS: ${p.projects
        .slice(-3)
        .map((e) => `${e.key}: ${e.value}`)
        .join('; ')}`,
    );
  if (p.expertise_areas.length > 0) sections.push(`EXPERTISE: ${p.expertise_areas.slice(-5).join(', ')}`);
  if (p.constraints.length > 0) sections.push(`CONSTRAINTS: ${p.constraints.slice(-3).join('; ')}`);
  return cut(sections.join('\n'), maxTokens);
}

/** The profile as the REST surface shows it (ordered maps as JSON objects). */
export function profileView(p: UserProfile): Record<string, unknown> {
  return { ...p, preferences: entriesToObject(p.preferences), projects: entriesToObject(p.projects) };
}
