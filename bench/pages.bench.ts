/**
 * Page weight and server time of the browser's heaviest pages on a park world of 100 turns (the
 * scripted model appending to Bob's memory every turn, so state and history grow): the world page
 * (timeline, state, changes) and an older page of its timeline, an attempt page (waterfall, patches), the run page (graph, waterfall)
 * and an LLM call page. The anchor is the budget in the same units: 500 KB per page and
 * 200 ms to the whole HTML answer (ratio = budget ÷ measured; ≥ 1 is within budget).
 */
import { loadScript } from '../src/dev/scripted-model/index.ts';
import { PARK_SCRIPT } from '../src/testing/world-kit.ts';
import { startBrowserWorld, TOKEN } from '../test/browser/fixture.ts';
import { type Bench, summarize } from './lib/harness.ts';

const BYTES_BUDGET = 500 * 1024;
const MS_BUDGET = 200;

const bench: Bench = {
  name: 'pages',
  description: 'browser page weight and server time at 100 turns (budget: 500 KB, 200 ms)',
  async run(ctx) {
    const turns = ctx.quick ? 20 : 100;
    const script = loadScript(PARK_SCRIPT);
    script.default = {
      json: {
        kind: 'final_patch',
        tool_call: null,
        patch: {
          narration: 'Bob walks another lap around the park and notes the weather.',
          effects: [
            {
              op: 'append_entity_memory',
              entity_id: 'bob',
              content: 'Walked another lap around the park; the wind keeps changing direction.',
            },
          ],
        },
      },
    };
    const started = performance.now();
    const world = await startBrowserWorld({ turns, script });
    ctx.log(`ran ${turns} turns in ${Math.round(performance.now() - started)} ms`);
    try {
      const headers = { authorization: `Bearer ${TOKEN}`, accept: 'text/html' };
      const get = async (path: string) => {
        const t0 = performance.now();
        const res = await fetch(`${world.url}${path}`, { headers });
        const body = await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
        return { bytes: body.byteLength, ms: performance.now() - t0 };
      };
      const last = world.attempts.at(-1)!;
      const first = world.attempts[0]!;
      const attempt = (await (
        await fetch(`${world.url}/attempts/${first}?format=json`, {
          headers: { authorization: headers.authorization },
        })
      ).json()) as { run_id: string; source_invocations: Array<{ llm_call_id: string | null }> };
      const llm = attempt.source_invocations.find((i) => i.llm_call_id)!.llm_call_id!;
      const pages: Array<[string, string]> = [
        ['world page', '/worlds/park'],
        ['world at a middle turn', `/worlds/park/turns/${Math.floor(turns / 2)}`],
        ['world, an older page of the timeline', `/worlds/park?before=${Math.max(1, turns - 49)}`],
        ['attempt page (last turn)', `/attempts/${last}`],
        ['run page with waterfall (turn 1)', `/runs/${attempt.run_id}`],
        ['LLM call page', `/llm-calls/${llm}`],
      ];
      const rounds = ctx.quick ? 3 : 10;
      for (const [name, path] of pages) {
        await get(path); // warm: first render compiles templates and fills caches
        const samples: number[] = [];
        let bytes = 0;
        for (let i = 0; i < rounds; i++) {
          const r = await get(path);
          samples.push(r.ms * 1000);
          bytes = r.bytes;
        }
        const p50 = summarize(samples).p50 / 1000;
        ctx.row({
          case: `${name}, ${turns} turns`,
          metric: 'page weight',
          unit: 'bytes',
          value: bytes,
          anchor: 'budget 500 KB',
          anchor_value: BYTES_BUDGET,
          ratio: Math.round((BYTES_BUDGET / bytes) * 100) / 100,
        });
        ctx.row({
          case: `${name}, ${turns} turns`,
          metric: 'server time p50',
          unit: 'ms',
          value: p50,
          anchor: 'budget 200 ms',
          anchor_value: MS_BUDGET,
        });
      }
    } finally {
      await world.close();
    }
  },
};

export default bench;
