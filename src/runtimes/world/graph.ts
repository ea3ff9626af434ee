/**
 * Compiles a scenario into the engine graph one attempt runs: the turn's ambient sources, then
 * each subject in listed order — its workflow's nodes (each generation node looping to itself on a
 * tool call, which its next generation performs; the first one runs the subject's before-subject
 * ambient sources first) — then the turn's commit and the terminal. The graph depends
 * only on the scenario, so every turn of a world shares one content-addressed graph.
 */
import { deepFreeze } from '../../core/deep-freeze.ts';
import type { ConnectorSpec, GraphSpec, NodeSpec } from '../../engine/index.ts';
import type { LoadedScenario } from './assemble.ts';

const turnGraphs = new WeakMap<LoadedScenario, GraphSpec>();

/**
 * `turnGraph(plan)`, made once per loaded plan (a runtime keeps one per scenario) and frozen: every
 * turn of the scenario's worlds runs the same object, which the engine hashes once (it keys a frozen
 * graph's hash by identity) instead of encoding its few hundred nodes canonically every turn.
 */
export function turnGraphOf(plan: LoadedScenario): GraphSpec {
  let graph = turnGraphs.get(plan);
  if (!graph) {
    graph = deepFreeze(turnGraph(plan));
    turnGraphs.set(plan, graph);
  }
  return graph;
}

export function turnGraph(plan: LoadedScenario): GraphSpec {
  const nodes: NodeSpec[] = [{ id: 'turn.ambient', type: 'world.turn_ambient', config: {} }];
  const connectors: ConnectorSpec[] = [];
  let prev = 'turn.ambient';
  let prevRoute: string | undefined;
  const link = (to: string) => {
    connectors.push({ from: prev, to, ...(prevRoute ? { route: prevRoute } : {}) });
  };
  plan.subjects.forEach((s, i) => {
    // The subject's before_subject_workflow sources run in its first generation node: a node of
    // their own would cost a step (a commit) per subject.
    const wf = plan.workflows.get(s.workflow_hash)!;
    wf.nodes.forEach((n, k) => {
      const gen = `s${i}.n.${n.id}`;
      nodes.push({
        id: gen,
        type: 'world.llm_tool_loop',
        config: { subject: i, node: k },
        max_generation_attempts: n.max_generation_attempts,
      });
      link(gen);
      // A tool call loops back to the node, whose next generation performs it first.
      connectors.push({ from: gen, to: gen, route: 'tool' });
      prev = gen;
      prevRoute = 'final';
    });
  });
  // The commit is the run's last node, so the run completes only once the turn is committed.
  nodes.push({ id: 'commit', type: 'world.commit', config: {} });
  link('commit');
  prev = 'commit';
  prevRoute = undefined;
  nodes.push({ id: 'end', type: 'terminal' });
  link('end');
  return {
    entry: 'turn.ambient',
    nodes,
    connectors,
    channels: {
      attempt: { reducer: 'value' },
      ambient: { reducer: 'append' },
      conversation: { reducer: 'append' },
      patches: { reducer: 'append' },
      marks: { reducer: 'append' },
    },
    max_steps: 100_000,
  };
}
