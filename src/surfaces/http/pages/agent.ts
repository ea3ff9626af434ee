/** The agent definition page: its cognitive graph (the default Emotion → Memory → Reasoning → Tool/ECS loop). */
import { DEFAULT_COGNITIVE_GRAPH } from '../../../runtimes/agent/index.ts';
import type { KindContext } from '../catalog/kind.ts';
import { h, picture } from '../html/render.ts';
import { registerView } from '../html/views.ts';
import { specPicture } from './graphs.ts';
import { startSessionForm } from './session-actions.ts';

registerView('agents', async (_ctx: KindContext, record, _url, csrf) => {
  const definition = (record.definition ?? {}) as { graph_ref?: { hash?: string }; label?: string };
  const custom = definition.graph_ref?.hash;
  return {
    title: `Agent ${String(record.label ?? String(record.hash).slice(0, 12))}`,
    crumbs: [{ href: '/agents', title: 'agents' }],
    body: h`<h2>Start a session</h2>${startSessionForm(String(record.hash), csrf)}<h2>Cognitive graph</h2>${
      custom
        ? h`<p class="muted">This agent runs its own graph (${custom}); its sessions' pages draw it.</p>`
        : picture(specPicture(DEFAULT_COGNITIVE_GRAPH, 'Cognitive graph'))
    }<p><a href="/sessions?agent_hash=${encodeURIComponent(String(record.hash))}">sessions of this agent</a></p>`,
  };
});
