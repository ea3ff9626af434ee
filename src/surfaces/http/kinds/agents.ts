/** Agent definitions, sessions, ExecutionContracts and user profiles in the catalog (docs/agents.md). */
import { NoemaError } from '../../../core/errors.ts';
import {
  listAgentDefinitions,
  listProfiles,
  listSessions,
  sessionRunIds,
} from '../../../runtimes/agent/index.ts';
import { llmUsageSum, MAX_SUM_RUNS } from '../../../sources/index.ts';
import { agentRuntimeFor } from '../agent-runtime.ts';
import { registerKind } from '../catalog/index.ts';

const cursorOf = (time: string, id: string) => (r: Record<string, unknown>) =>
  `${Number(r[time])}:${String(r[id])}`;

registerKind({
  kind: 'agents',
  title: 'Agents',
  description: 'Content-addressed agent definitions (tools pinned at put time)',
  key: { by: 'hash', field: 'hash' },
  filters: { label: { type: 'string', maxLength: 128 } },
  async list({ store }, q) {
    return listAgentDefinitions(store, {
      ...(q.filters as { label?: string }),
      limit: q.limit,
      ...(q.cursor ? { cursor: q.cursor } : {}),
    });
  },
  cursorOf: cursorOf('created_at', 'hash'),
  async get({ store }, hash) {
    const definition = await (await agentRuntimeFor(store)).getAgent(hash);
    return { hash, label: definition.label, llm_source_hash: definition.llm_source_ref.hash, definition };
  },
  links: [
    { field: 'llm_source_hash', kind: 'response-sources', rel: 'llm_source' },
    { rel: 'sessions', href: (a) => `/sessions?agent_hash=${encodeURIComponent(String(a.hash))}` },
  ],
  columns: ['hash', 'label', 'created_at'],
});

registerKind({
  kind: 'sessions',
  title: 'Agent sessions',
  description: 'Conversations with agents: transcript, ExecutionState, ReasoningContext, contracts, status',
  key: { by: 'id', param: 'session_id' },
  filters: {
    user_id: { type: 'string', maxLength: 128, aliases: ['user'] },
    agent_hash: { type: 'string', maxLength: 64, aliases: ['agent'] },
    status: { type: 'enum', values: ['idle', 'running', 'waiting'] },
  },
  async list({ store }, q) {
    return listSessions(store, {
      ...(q.filters as Record<string, string>),
      limit: q.limit,
      ...(q.cursor ? { cursor: q.cursor } : {}),
    });
  },
  cursorOf: cursorOf('created_at', 'session_id'),
  async get({ store }, session_id) {
    const view = await (await agentRuntimeFor(store)).getSession(session_id);
    const runs = await sessionRunIds(store, session_id, MAX_SUM_RUNS);
    return { ...view, usage: await llmUsageSum(store, { run_ids: runs }) };
  },
  links: [
    { field: 'agent_hash', kind: 'agents', rel: 'agent' },
    { field: 'run_id', kind: 'runs', rel: 'run' },
    { rel: 'events', href: (s) => `/sessions/${encodeURIComponent(String(s.session_id))}/events` },
    { rel: 'profile', href: (s) => `/user-profiles/${encodeURIComponent(String(s.user_id))}` },
  ],
  columns: ['session_id', 'user_id', 'status', 'turn_count', 'agent_hash', 'updated_at'],
});

registerKind({
  kind: 'contracts',
  title: 'ExecutionContracts',
  description: 'Tool calls, ECS forms and model calls as contracts with their transitions (seed 000)',
  key: { by: 'id', param: 'contract_id' },
  async get({ store }, contract_id) {
    const rt = await agentRuntimeFor(store);
    return { ...(await rt.engine.getContract(contract_id)) } as Record<string, unknown>;
  },
});

registerKind({
  kind: 'user-profiles',
  title: 'User profiles',
  description: 'Situated user profiles (seed 002), updated in the background after each interaction',
  key: { by: 'id', param: 'user_id' },
  async list({ store }, q) {
    return listProfiles(store, { limit: q.limit, ...(q.cursor ? { cursor: q.cursor } : {}) });
  },
  cursorOf: cursorOf('updated_at', 'user_id'),
  async get({ store }, user_id) {
    const profile = await (await agentRuntimeFor(store)).getUserProfile(user_id);
    if (!profile.stored)
      throw new NoemaError('UNKNOWN_USER_PROFILE', `no profile for user ${user_id}`, { status: 404 });
    return profile;
  },
  links: [{ rel: 'sessions', href: (p) => `/sessions?user_id=${encodeURIComponent(String(p.user_id))}` }],
  columns: ['user_id', 'interaction_count', 'synthesis_version', 'revision', 'updated_at'],
});
