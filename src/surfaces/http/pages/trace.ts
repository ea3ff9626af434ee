/**
 * Forensics pages: a source invocation and an LLM call shown as one chain — world › turn › attempt ›
 * generation › LLM call — with the prompt messages, the streamed chunks, the parsed artifact, the
 * ambient inputs and tool results the generation saw, the patch it produced and the content hashes.
 */
import { getAttempt } from '../../../runtimes/world/index.ts';
import { getSourceInvocation } from '../../../sources/index.ts';
import type { Queryable } from '../../../store/store.ts';
import type { KindContext } from '../catalog/kind.ts';
import { badge, h, type Markup, type NavItem } from '../html/render.ts';
import { registerView } from '../html/views.ts';
import { hrefs, idLink, invocationLabel, kv, toMs, when } from './common.ts';
import { patchCard } from './patch.ts';
import { tokenText } from './reads.ts';

type Rec = Record<string, unknown>;
type Attempt = Awaited<ReturnType<typeof getAttempt>>;

async function attemptOf(store: Queryable, id: unknown): Promise<Attempt | null> {
  if (typeof id !== 'string') return null;
  try {
    return await getAttempt(store, { attempt_id: id });
  } catch {
    return null; // an invocation outside a world (agent, flowchart) has no attempt
  }
}

function crumbsOf(inv: Rec, attempt: Attempt | null): NavItem[] {
  const out: NavItem[] = [];
  if (attempt) {
    out.push({ href: hrefs.world(attempt.world_slug), title: `world ${attempt.world_slug}` });
    out.push({
      href: hrefs.worldTurn(attempt.world_slug, attempt.attempted_turn),
      title: `turn ${attempt.attempted_turn}`,
    });
    out.push({ href: hrefs.attempt(attempt.attempt_id), title: 'attempt' });
  } else if (typeof inv.run_id === 'string') out.push({ href: hrefs.run(inv.run_id), title: 'run' });
  return out;
}

/** The hashes that pin what ran: workflow, source, schemas. */
function hashes(inv: Rec): Markup {
  const row = (label: string, value: unknown, href: (v: string) => string) =>
    typeof value === 'string'
      ? h`<tr><th>${label}</th><td><a href="${href(value)}"><code>${value}</code></a></td></tr>`
      : '';
  return h`<h2>Content hashes</h2><div class="scroll"><table>${row('workflow', inv.workflow_hash, hrefs.workflow)}${row(
    'response source',
    inv.source_hash,
    hrefs.source,
  )}${row('output schema', inv.output_schema_hash, hrefs.schema)}${row('input schema', inv.input_schema_hash, hrefs.schema)}</table></div>`;
}

/** Long texts are cut on the page (the JSON twin with `?full=true` has them whole): pages stay light. */
const PAGE_TEXT = 20_000;

function clipped(text: string): Markup {
  if (text.length <= PAGE_TEXT) return h`${text}`;
  return h`${text.slice(0, PAGE_TEXT)}<span class="muted">… ${String(text.length - PAGE_TEXT)} more characters (see ?format=json&amp;full=true)</span>`;
}

function jsonClipped(value: unknown): Markup {
  return h`<pre tabindex="0">${clipped(JSON.stringify(value, null, 2) ?? 'null')}</pre>`;
}

function messages(list: unknown): Markup {
  if (!Array.isArray(list) || list.length === 0) return h`<p class="muted">No messages recorded.</p>`;
  return h`${list.map((m: Rec) => {
    const role = String(m.role ?? 'message');
    const content = typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? m, null, 2);
    return h`<div class="msg role-${role.replace(/[^a-z]/g, '')}"><div class="role">${role}${m.name ? ` · ${m.name}` : ''}</div><pre tabindex="0">${clipped(content)}</pre></div>`;
  })}`;
}

/** Ambient inputs and tool results the generation could see: earlier rows of its attempt for its subject. */
async function inputsSeen(store: Queryable, inv: Rec, attempt: Attempt): Promise<Markup> {
  const seq = Number(inv.invocation_seq ?? Number.POSITIVE_INFINITY);
  const subject = inv.workflow_subject_entity_id ?? null;
  const seen = attempt.source_invocations.filter(
    (r) =>
      Number(r.invocation_seq) < seq &&
      (r.invocation_kind === 'ambient_context' || r.invocation_kind === 'model_elected_tool') &&
      (r.workflow_subject_entity_id === null || r.workflow_subject_entity_id === subject),
  );
  if (!seen.length) return h`<p class="muted">No ambient inputs or tool results before this call.</p>`;
  const rows = [];
  for (const r of seen.slice(0, 12)) {
    const full = await getSourceInvocation(store, r.source_invocation_id);
    rows.push(
      h`<details class="panel"><summary>${invocationLabel(r)} ${badge(r.status)}</summary>${kv([
        ['record', idLink(hrefs.invocation(r.source_invocation_id), r.source_invocation_id)],
        [
          'source hash',
          typeof r.source_hash === 'string' ? idLink(hrefs.source(r.source_hash), r.source_hash) : null,
        ],
      ])}${jsonClipped(full.response_json ?? null)}</details>`,
    );
  }
  return h`${rows}`;
}

async function invocationView(ctx: KindContext, inv: Rec) {
  const attempt = await attemptOf(ctx.store, inv.attempt_id);
  const id = String(inv.source_invocation_id);
  const children = attempt?.source_invocations.filter((r) => r.parent_source_invocation_id === id) ?? [];
  const patches = attempt?.patches.filter((p) => p.source_invocation_id === id) ?? [];
  const llm = typeof inv.llm_call_id === 'string' ? inv.llm_call_id : null;
  const body = h`<div class="chain">${badge(inv.status)}${
    llm ? h`<a class="to-llm-call" href="${hrefs.llmCall(llm)}">LLM call →</a>` : ''
  }${
    typeof inv.parent_source_invocation_id === 'string'
      ? h`<a href="${hrefs.invocation(inv.parent_source_invocation_id)}">parent generation</a>`
      : ''
  }</div>
<div class="panel">${kv([
    ['kind', String(inv.invocation_kind ?? '')],
    ['subject', (inv.workflow_subject_entity_id as string) ?? null],
    ['workflow node', (inv.workflow_node_id as string) ?? null],
    ['interface', (inv.interface_name as string) ?? null],
    ['tool', (inv.tool_name as string) ?? null],
    ['ambient source', (inv.ambient_source_id as string) ?? null],
    ['generation attempt', inv.logical_generation_attempt as number],
    ['tool-loop round', inv.tool_loop_round as number],
    ['model output', (inv.model_output_kind as string) ?? null],
    ['started', when(inv.started_at)],
    ['duration', inv.duration_ms === null || inv.duration_ms === undefined ? null : `${inv.duration_ms} ms`],
    ['failure', inv.failure_class ? `${inv.failure_class}: ${inv.failure_message ?? ''}` : null],
  ])}</div>
${patches.length ? h`<h2>The patch it produced</h2>${patches.map((p) => patchCard(p, attempt!, false))}` : ''}
${children.length ? h`<h2>Calls made under it</h2><ul>${children.map((c) => h`<li><a href="${hrefs.invocation(c.source_invocation_id)}">${invocationLabel(c)}</a> ${badge(c.status)}</li>`)}</ul>` : ''}
${hashes(inv)}
<h2>Request</h2>${jsonClipped(inv.request_json ?? null)}<h2>Response</h2>${jsonClipped(inv.response_json ?? null)}`;
  return { title: invocationLabel(inv), crumbs: crumbsOf(inv, attempt), body };
}

/** The text the model streamed: each chunk's `delta.content` (raw chunk data when it is not a Chat Completions chunk). */
function assembled(chunks: Rec[]): string {
  return chunks
    .map((c) => {
      const data = String(c.data ?? '');
      try {
        const parsed = JSON.parse(data) as { choices?: Array<{ delta?: { content?: unknown } }> };
        const content = parsed.choices?.[0]?.delta?.content;
        return typeof content === 'string' ? content : '';
      } catch {
        return data === '[DONE]' ? '' : data;
      }
    })
    .join('');
}

/** From the call's start to its first streamed chunk (null when nothing streamed or a time is missing). */
export function timeToFirstToken(call: Rec): string | null {
  const start = toMs(call.started_at);
  const first = toMs(call.first_chunk_at);
  if (start === null || first === null || first < start) return null;
  return `${first - start} ms`;
}

async function llmCallView(ctx: KindContext, call: Rec) {
  const inv = (await getSourceInvocation(ctx.store, String(call.source_invocation_id))) as Rec;
  const attempt = await attemptOf(ctx.store, call.attempt_id ?? inv.attempt_id);
  const chunks = Array.isArray(call.chunks) ? (call.chunks as Rec[]) : [];
  const streamed = assembled(chunks);
  const tokens = call.tokens as
    | { input?: number | null; output?: number | null; cached?: number | null; reasoning?: number | null }
    | undefined;
  const patches = attempt?.patches.filter((p) => p.source_invocation_id === inv.source_invocation_id) ?? [];
  const crumbs = [
    ...crumbsOf(inv, attempt),
    { href: hrefs.invocation(String(inv.source_invocation_id)), title: 'generation' },
  ];
  const body = h`<div class="chain">${badge(inv.status)}<span>${String(call.model ?? '')}</span><span>${String(call.schema_delivery ?? '')}</span></div>
<div class="panel">${kv([
    ['subject', (call.workflow_subject_entity_id as string) ?? null],
    ['workflow node', (call.workflow_node_id as string) ?? null],
    ['generation attempt', call.logical_generation_attempt as number],
    ['tool-loop round', call.tool_loop_round as number],
    ['model output', (call.model_output_kind as string) ?? null],
    ['endpoint', `${call.endpoint_name ?? ''} ${call.base_url ?? ''}`],
    [
      'source invocation',
      idLink(hrefs.invocation(String(inv.source_invocation_id)), String(inv.source_invocation_id)),
    ],
    ['started', when(inv.started_at)],
    ['duration', inv.duration_ms === null || inv.duration_ms === undefined ? null : `${inv.duration_ms} ms`],
    ['time to first token', timeToFirstToken(call)],
    [
      'tokens',
      tokenText(
        tokens?.input ?? (call.prompt_tokens as number | null),
        tokens?.output ?? (call.completion_tokens as number | null),
      ),
    ],
    ['cached tokens', typeof tokens?.cached === 'number' ? tokens.cached : null],
    ['reasoning tokens', typeof tokens?.reasoning === 'number' ? tokens.reasoning : null],
  ])}</div>
${patches.length ? h`<h2>The patch it produced</h2>${patches.map((p) => patchCard(p, attempt!, false))}` : ''}
<h2>Prompt messages</h2>${messages(call.request_messages)}
<h2>Streamed answer <span class="muted">(${chunks.length}${call.chunks_truncated ? '+' : ''} chunks)</span></h2>
<pre class="streamed" tabindex="0">${clipped(streamed)}</pre>
<details><summary>Each chunk with its time</summary><div class="scroll"><table><tr><th>#</th><th>ms</th><th>data</th></tr>${chunks
    .slice(0, 200)
    .map(
      (c) =>
        h`<tr><td>${String(c.seq)}</td><td>${String(c.offset_ms)}</td><td><code>${String(c.data)}</code></td></tr>`,
    )}</table></div></details>
<h2>Parsed artifact</h2>${jsonClipped(call.artifacts ?? [])}
<h2>What it saw: ambient inputs and tool results</h2>${attempt ? await inputsSeen(ctx.store, inv, attempt) : h`<p class="muted">Not part of a world attempt.</p>`}
${hashes(inv)}`;
  return { title: `LLM call · ${invocationLabel(inv)}`, crumbs, body };
}

registerView('source-invocations', invocationView);
registerView('llm-calls', llmCallView);
