// The scripted model's native tool calls and non-streamed completions (used by the Mastra anchor of
// the agent benchmark): a real server on 127.0.0.1, read with fetch.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseScript, startScriptedModel } from './index.ts';

const script = parseScript({
  rules: [{ match: { last_message_contains: '"sum"' }, reply: { text: 'The sum is 5.' } }],
  default: { tool_calls: [{ name: 'add', arguments: { a: 2, b: 3 } }] },
});

type Choice = {
  delta?: { tool_calls?: unknown[] };
  message: { role: string; content: string; tool_calls: Array<{ function: { arguments: string } }> };
  finish_reason: string | null;
};

async function post(url: string, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${url}/chat/completions`, { method: 'POST', body: JSON.stringify(body) });
}

test('tool_calls stream as delta.tool_calls with finish reason tool_calls', async () => {
  const model = await startScriptedModel({ script });
  try {
    const res = await post(model.url, {
      model: 'm',
      stream: true,
      messages: [{ role: 'user', content: 'add' }],
    });
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    const events = (await res.text())
      .split('\n')
      .filter((l) => l.startsWith('data: {'))
      .map((l) => JSON.parse(l.slice(6)) as { choices: Choice[] });
    const calls = events.flatMap((e) => e.choices.flatMap((c) => c.delta?.tool_calls ?? []));
    assert.deepEqual(calls, [
      {
        index: 0,
        id: 'call_scripted_0',
        type: 'function',
        function: { name: 'add', arguments: '{"a":2,"b":3}' },
      },
    ]);
    assert.ok(events.some((e) => e.choices[0]?.finish_reason === 'tool_calls'));
  } finally {
    await model.close();
  }
});

test('a request without stream: true gets one chat.completion object', async () => {
  const model = await startScriptedModel({ script });
  try {
    const first = await post(model.url, { model: 'm', messages: [{ role: 'user', content: 'add' }] });
    assert.match(first.headers.get('content-type') ?? '', /application\/json/);
    const a = (await first.json()) as { object: string; choices: Choice[] };
    assert.equal(a.object, 'chat.completion');
    assert.equal(a.choices[0]?.finish_reason, 'tool_calls');
    assert.equal(a.choices[0]?.message.tool_calls[0]?.function.arguments, '{"a":2,"b":3}');
    const second = await post(model.url, {
      model: 'm',
      messages: [
        { role: 'user', content: 'add' },
        { role: 'tool', content: '{"sum":5}' },
      ],
    });
    const b = (await second.json()) as { choices: Choice[] };
    assert.deepEqual(b.choices[0]?.message, { role: 'assistant', content: 'The sum is 5.' });
    assert.equal(b.choices[0]?.finish_reason, 'stop');
  } finally {
    await model.close();
  }
});

test('a tool call without a name is refused when the script loads', () => {
  assert.throws(
    () => parseScript({ rules: [], default: { tool_calls: [{ arguments: {} }] } }),
    (e: { code?: string }) => e.code === 'INVALID_INPUT',
  );
});
