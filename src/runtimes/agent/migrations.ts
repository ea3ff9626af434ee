/**
 * Tables owned by the agent runtime (ids 600–699): content-addressed agent definitions and
 * graphs, sessions with their transcript and numbered event stream, ECS checkpoints
 * (`graph_checkpoints`, seed 000), situated user profiles (seed 002) and the background
 * synthesis runs that update them.
 */
import type { Migration } from '../../store/index.ts';

export const agentMigrations: Migration[] = [
  {
    id: 600,
    name: 'agent: definitions, graphs, sessions, events, checkpoints',
    up: (d) => [
      `CREATE TABLE agent_definitions (
         hash TEXT PRIMARY KEY,
         label TEXT NOT NULL,
         content TEXT NOT NULL,
         created_at ${d.bigint} NOT NULL
       )`,
      'CREATE INDEX agent_definitions_label ON agent_definitions (label, created_at)',
      `CREATE TABLE agent_graphs (
         hash TEXT PRIMARY KEY,
         content TEXT NOT NULL,
         created_at ${d.bigint} NOT NULL
       )`,
      // status: idle | running | waiting. run_id is the run of the message in flight (or waiting).
      `CREATE TABLE agent_sessions (
         session_id TEXT PRIMARY KEY,
         agent_hash TEXT NOT NULL REFERENCES agent_definitions(hash),
         user_id TEXT NOT NULL,
         status TEXT NOT NULL,
         run_id TEXT,
         turn_count ${d.bigint} NOT NULL DEFAULT 0,
         created_at ${d.bigint} NOT NULL,
         updated_at ${d.bigint} NOT NULL
       )`,
      'CREATE INDEX agent_sessions_user ON agent_sessions (user_id)',
      // The dialogue history: one row per message, numbered per session.
      `CREATE TABLE agent_session_messages (
         session_id TEXT NOT NULL REFERENCES agent_sessions(session_id) ON DELETE CASCADE,
         seq ${d.bigint} NOT NULL,
         run_id TEXT,
         role TEXT NOT NULL,
         content TEXT NOT NULL,
         at ${d.bigint} NOT NULL,
         PRIMARY KEY (session_id, seq)
       )`,
      // The session's event stream (status, emotion, …, done, error) with per-session sequence ids,
      // so a client resumes from Last-Event-ID across messages and processes.
      `CREATE TABLE agent_session_events (
         session_id TEXT NOT NULL REFERENCES agent_sessions(session_id) ON DELETE CASCADE,
         seq ${d.bigint} NOT NULL,
         run_id TEXT NOT NULL,
         event TEXT NOT NULL,
         data TEXT NOT NULL,
         at ${d.bigint} NOT NULL,
         PRIMARY KEY (session_id, seq)
       )`,
      // Seed 000: the serialized GraphState (every contract included) of a session suspended on an
      // ECS form, keyed by session_id; `response` is what /ecs/respond recorded.
      `CREATE TABLE graph_checkpoints (
         session_id TEXT PRIMARY KEY REFERENCES agent_sessions(session_id) ON DELETE CASCADE,
         run_id TEXT NOT NULL,
         contract_id TEXT NOT NULL,
         state_json TEXT NOT NULL,
         response_json TEXT,
         created_at ${d.bigint} NOT NULL,
         updated_at ${d.bigint} NOT NULL
       )`,
    ],
  },
  {
    id: 601,
    name: 'agent: user profiles and synthesis runs',
    up: (d) => [
      `CREATE TABLE user_profiles (
         user_id TEXT PRIMARY KEY,
         profile TEXT NOT NULL,
         interaction_count ${d.bigint} NOT NULL,
         synthesis_version ${d.bigint} NOT NULL,
         revision ${d.bigint} NOT NULL,
         updated_at ${d.bigint} NOT NULL
       )`,
      // One row per finished interaction; the background engine run that folds it into the profile.
      `CREATE TABLE user_profile_updates (
         run_id TEXT PRIMARY KEY,
         user_id TEXT NOT NULL,
         session_id TEXT NOT NULL,
         job TEXT NOT NULL,
         status TEXT NOT NULL,
         created_at ${d.bigint} NOT NULL,
         finished_at ${d.bigint}
       )`,
      'CREATE INDEX user_profile_updates_open ON user_profile_updates (status, created_at)',
    ],
  },
  {
    id: 602,
    name: 'agent: session claims (owner + lease) and the carried-over reasoning context',
    up: (d) => [
      // Who claimed the turn in flight and until when: a claim whose run was never created is
      // taken over only once its lease expired (cross-process claim safety).
      'ALTER TABLE agent_sessions ADD COLUMN claim_owner TEXT',
      `ALTER TABLE agent_sessions ADD COLUMN claim_expires_at ${d.bigint}`,
      // The ReasoningContext the last finished turn ended with (JSON), so the next message starts
      // from it without reading the previous run.
      'ALTER TABLE agent_sessions ADD COLUMN reasoning TEXT',
      // Finding sessions left running by a stopped process (settled when a runtime starts).
      'CREATE INDEX agent_sessions_status ON agent_sessions (status, updated_at)',
    ],
  },
];
