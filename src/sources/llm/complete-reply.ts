/**
 * Whether the chunks a streamed LLM call persisted (`llm_call_chunks`) hold its whole reply: the event
 * carrying `finish_reason`, or `[DONE]`, is among them. Then the reply's text is every content delta
 * before it — what the call would have returned had its process not died before finishing the row.
 */

/** A reply received whole: its assistant text (as stored, redacted) and how the model finished it. */
export interface CompleteReply {
  text: string;
  finish_reason: string;
  usage: Record<string, unknown> | null;
}

type Event = {
  choices?: Array<{
    delta?: { content?: string | null };
    message?: { content?: string | null };
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
    if (data.trim() === '[DONE]') return { text, finish_reason: finish ?? 'stop', usage };
    let event: Event;
    try {
      event = JSON.parse(data) as Event;
    } catch {
      return null; // a chunk the call itself would have failed on
    }
    if (event.error) return null;
    const choice = event.choices?.[0];
    const piece = choice?.delta?.content ?? choice?.message?.content;
    if (typeof piece === 'string') text += piece;
    if (choice?.finish_reason) finish = choice.finish_reason;
    if (event.usage) usage = event.usage;
  }
  return finish === null ? null : { text, finish_reason: finish, usage };
}
