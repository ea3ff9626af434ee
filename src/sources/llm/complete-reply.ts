/**
 * Whether the chunks a streamed LLM call persisted (`llm_call_chunks`) hold its whole reply: the event
 * carrying `finish_reason: "stop"` is among them. Then the reply's text is every content delta —
 * what the call would have returned had its process not died before finishing the row. Any other
 * ending (a refusal, `length`, `content_filter`, tool calls) is left to the call's own judgement: it
 * is not kept, and the call is made again.
 */

/** A reply received whole: its assistant text (as stored, redacted) and how the model finished it. */
export interface CompleteReply {
  text: string;
  finish_reason: string;
  usage: Record<string, unknown> | null;
}

type Message = { content?: string | null; refusal?: string | null; tool_calls?: unknown };

type Event = {
  choices?: Array<{
    delta?: Message;
    message?: Message;
    finish_reason?: string | null;
  }>;
  usage?: Record<string, unknown> | null;
  error?: unknown;
};

/** The reply `chunks` (`[offset_ms, data]` as decoded) hold whole, or null when they end before it. */
export function completeReplyOf(chunks: ReadonlyArray<readonly [number, string]>): CompleteReply | null {
  let text = '';
  let finish: string | null = null;
  let usage: Record<string, unknown> | null = null;
  for (const [, data] of chunks) {
    if (data.trim() === '[DONE]') break;
    let event: Event;
    try {
      event = JSON.parse(data) as Event;
    } catch {
      return null; // a chunk the call itself would have failed on
    }
    if (event.error) return null;
    const choice = event.choices?.[0];
    const m = choice?.delta ?? choice?.message;
    if (m?.refusal || m?.tool_calls) return null;
    if (typeof m?.content === 'string') text += m.content;
    if (choice?.finish_reason) finish = choice.finish_reason;
    if (event.usage) usage = event.usage;
  }
  return finish === 'stop' ? { text, finish_reason: finish, usage } : null;
}
