/**
 * One WorldPatch as a card: its subject and narration, each transition (state_before → state_after,
 * state_before being the state just before this patch) and the links that answer "why": the
 * generation that produced it and its LLM call.
 */
import type { getAttempt } from '../../../runtimes/world/index.ts';
import { h, type Markup } from '../html/render.ts';
import { hrefs } from './common.ts';

type Attempt = Awaited<ReturnType<typeof getAttempt>>;
type Patch = Attempt['patches'][number];

export interface Transition {
  op?: string;
  target?: { entity_id?: string; environment_label?: string };
  state_before?: unknown;
  state_after?: unknown;
}

/** The generation and LLM call behind a patch, as links (empty when the patch has no recorded call). */
export function whyLinks(patch: Patch, attempt: Attempt): Markup {
  const invId = patch.source_invocation_id;
  if (!invId) return h`<span class="muted">no recorded call</span>`;
  const inv = attempt.source_invocations.find((r) => r.source_invocation_id === invId);
  const llm = typeof inv?.llm_call_id === 'string' ? inv.llm_call_id : null;
  return h`<a href="${hrefs.attempt(attempt.attempt_id)}#patch-${patch.patch_seq}">patch #${patch.patch_seq}</a> → <a href="${hrefs.invocation(invId)}">generation</a>${
    llm ? h` → <a class="why" href="${hrefs.llmCall(llm)}">LLM call</a>` : ''
  }`;
}

export const targetOf = (t: Transition): string =>
  t.target?.entity_id ?? (t.target?.environment_label ? `environment ${t.target.environment_label}` : '—');

const text = (v: unknown) =>
  v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v);

export function transitionRows(patch: Patch, attempt: Attempt, why: boolean): Markup[] {
  return (patch.transitions as Transition[]).map(
    (t) =>
      h`<tr class="change" data-entity="${targetOf(t)}"><td>${targetOf(t)}</td><td><code>${t.op ?? ''}</code></td><td class="before">${text(
        t.state_before,
      )}</td><td class="after">${text(t.state_after)}</td>${why ? h`<td>${whyLinks(patch, attempt)}</td>` : ''}</tr>`,
  );
}

export function patchCard(patch: Patch, attempt: Attempt, withLinks = true): Markup {
  const rows = transitionRows(patch, attempt, false);
  return h`<div class="panel patch" id="patch-${patch.patch_seq}"><h3>#${patch.patch_seq} · ${patch.subject_entity_id}</h3>
<p>${patch.narration}</p>${
    rows.length
      ? h`<div class="scroll"><table><tr><th>target</th><th>op</th><th>state_before</th><th>state_after</th></tr>${rows}</table></div>`
      : h`<p class="muted">No changes.</p>`
  }${withLinks ? h`<p class="muted">${whyLinks(patch, attempt)}</p>` : ''}</div>`;
}
