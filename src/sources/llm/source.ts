/**
 * The `llm_chat_completions` source: one streamed Chat Completions call over HTTP, traced
 * richly in `llm_calls`. If the upstream rejects `response_format` the call fails loudly with
 * `response_format_rejected`; prompt-only delivery happens only when the definition says so.
 */
import { uuidv7 } from '../../core/ids.ts';
import { SourceFailure, transportFailure } from '../failure.ts';
import { tryParseJson } from '../http-json/read-body.ts';
import { sendHttp } from '../http-transport.ts';
import type { Redactor } from '../redact.ts';
import type { ResponseSource, SourceResponse } from '../source.ts';
import { type LlmInterface, llmInterfaceSchema, resolveEndpoint } from './interface.ts';
import { endedBadly, truncated, upstreamFailure } from './outcome.ts';
import { buildChatBody, normalizeAssistantText, parseLlmRequest } from './request.ts';
import { schemaPlanFor, schemaRefusal } from './schema-delivery.ts';
import { newStreamState, readCompletionStream, settledChunks } from './stream.ts';
import {
  appendChunkBatch,
  dropChunkBatches,
  encodeChunk,
  llmFinishedColumns,
  llmRunningColumns,
} from './trace.ts';
import { costOf, readPrices } from './usage.ts';

export const llmChatCompletionsSource: ResponseSource = {
  name: 'llm_chat_completions',
  interfaceSchema: llmInterfaceSchema,
  plan({ iface: raw, request, links, resultSchema, env, timeoutMs, onChunk, source_invocation_id }) {
    const iface = raw as unknown as LlmInterface;
    const req = parseLlmRequest(request);
    const endpoint = resolveEndpoint(iface, env);
    const profile = endpoint.provider;
    const prices = readPrices(env.NOEMA_LLM_PRICES);
    if (!prices.ok) {
      throw new SourceFailure('not_configured', prices.message, {
        details: { variable: 'NOEMA_LLM_PRICES' },
        hint: 'correct NOEMA_LLM_PRICES in the environment of the Noema process',
      });
    }
    // A schema outside the strict subset is converted for this provider, or refused before any byte
    // is sent (`schema-delivery.ts`); a converted reply is read back before it is validated.
    const plan =
      resultSchema && iface.schema_delivery === 'response_format' && profile.schema !== 'prompt'
        ? schemaPlanFor(resultSchema.schema, profile)
        : null;
    if (plan?.form === 'refused') throw schemaRefusal(profile.name, plan.violations);
    const converted = plan?.form === 'converted' ? plan : null;
    const { body, messages, max_tokens } = buildChatBody(
      iface,
      endpoint,
      req,
      converted ? converted.schema : (resultSchema?.schema ?? null),
    );
    // The trace is a part of the invocation row: the call's id is its invocation's.
    const llm_call_id = source_invocation_id ?? uuidv7();
    const state = newStreamState();
    state.reasoningFields = profile.reasoning;
    const artifacts: Array<{ kind: string; content: unknown }> = [];
    let response: SourceResponse = {};
    let normalized: string | null = null;
    let startedAt = Date.now();
    // The call's redactor, known once the running row is written (not for a plan run alone).
    let redactor: Redactor | null = null;
    let invocationId = llm_call_id;
    const sendsFormat = body.response_format !== undefined;
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'text/event-stream',
    };
    if (endpoint.apiKey) {
      if (profile.auth === 'api-key') headers['api-key'] = endpoint.apiKey;
      else headers.authorization = `Bearer ${endpoint.apiKey}`;
    }
    if (links.workflow_subject_entity_id) headers['x-noema-subject'] = links.workflow_subject_entity_id;
    if (links.attempted_turn != null) headers['x-noema-turn'] = String(links.attempted_turn);
    return {
      request_json: req,
      metadata: {
        model: endpoint.model,
        endpoint: endpoint.name,
        provider: profile.name,
        schema_delivery: iface.schema_delivery,
        ...(converted ? { schema_converted: true } : {}),
      },
      llm_call_id,
      timeout_ms: timeoutMs ?? endpoint.timeoutMs,
      secrets: endpoint.apiKey ? [endpoint.apiKey] : [],
      begin(ctx) {
        startedAt = ctx.started_at;
        redactor = ctx.redactor;
        invocationId = ctx.source_invocation_id;
        return llmRunningColumns(
          {
            endpoint_name: endpoint.name,
            base_url: endpoint.baseUrl,
            model: endpoint.model,
            schema_delivery: iface.schema_delivery,
            request_json: body,
            // The invocation's request_json is `req`: its messages are stored there only.
            messages_in_request: messages === req.messages,
            // The invocation names its result schema (`output_schema_hash`), stored in json_schemas.
            // A converted schema is not the stored one: it is kept in the body as sent.
            schema_in_store: resultSchema != null && sendsFormat && converted === null,
          },
          ctx.redactor,
        );
      },
      async execute(ctx) {
        const what = `LLM call to ${endpoint.name} endpoint (${endpoint.model})`;
        try {
          const res = await sendHttp(`${endpoint.baseUrl}/chat/completions`, {
            method: 'POST',
            headers: { ...headers, 'x-noema-source-invocation-id': ctx.source_invocation_id },
            body: JSON.stringify(body),
            signal: ctx.signal,
          });
          response = { http_status: res.status, response_headers: res.headers() };
          if (!res.ok) throw await upstreamFailure(res, response, sendsFormat, what, artifacts);
          // The observer gets the text of each event once it was read, as the content's redaction
          // window lets it through (what it holds back comes with a later event, or the end).
          if (redactor) {
            const calls = redactor;
            state.windowOf = () => calls.stream();
          }
          let observed = 0;
          const observe = () => {
            if (!onChunk || state.cleanText.length === observed) return;
            const piece = state.cleanText.slice(observed);
            observed = state.cleanText.length;
            try {
              onChunk(piece);
            } catch {
              // An observer never breaks the call it watches.
            }
          };
          await readCompletionStream(res, state, startedAt, () => {
            // Encoded as it arrives, while the stream is read: the transactions that store the
            // chunks (a progress batch, the finish) then only join them, holding the write lock less.
            const settled = settledChunks(state);
            if (redactor && settled > 0) encodeChunk(state.chunks, settled - 1, redactor);
            observe();
            // The finish event completes the answer: a long stream's last batch is written at once.
            ctx.progressed(state.finishReason !== null);
          });
          observe();
          response.response_text = state.rawText;
          normalized = normalizeAssistantText(state.rawText);
          if (state.reasoningText !== '')
            artifacts.push({ kind: 'reasoning', content: { text: state.reasoningText } });
          const ended = endedBadly(state, response, artifacts);
          if (ended) throw ended;
          const parsed = tryParseJson(normalized);
          if (!parsed.ok) {
            artifacts.push({ kind: 'parse_error', content: { message: parsed.error, text: normalized } });
            if (state.finishReason === 'length') throw truncated(state, max_tokens, parsed.error, response);
            throw new SourceFailure('non_json', `the model's reply is not JSON (${parsed.error})`, {
              response,
            });
          }
          response.response_json = parsed.value;
          return { ...response, output: converted ? converted.readBack(parsed.value) : parsed.value };
        } catch (err) {
          throw transportFailure(err, {
            timedOut: ctx.timedOut(),
            cancelled: ctx.cancelled(),
            what,
            response,
          });
        }
      },
      progress: (q, redactor) =>
        appendChunkBatch(q, { source_invocation_id: invocationId, llm_call_id }, state, redactor),
      finish(ctx) {
        // A new list each time: a finish retried after a store fault must not repeat these.
        const finished = [...artifacts];
        // The call's cost by the operator's price table, as priced when it was made (the tokens
        // themselves are read from usage_json: `getLlmCall`'s `tokens`).
        if (prices.table && (response.http_status ?? 999) < 300)
          finished.push({ kind: 'cost', content: costOf(state.usage, endpoint.model, prices.table) });
        if (ctx.output !== undefined) finished.push({ kind: 'parsed_output', content: ctx.output });
        // invokeSource recorded `response` on the invocation row: the parsed output is its response_json.
        const outputRecorded =
          ctx.output !== undefined && ctx.recorded.has_response_json && ctx.output === response.response_json;
        if (ctx.validation.status === 'invalid') {
          finished.push({ kind: 'validation_error', content: { errors: ctx.validation.errors } });
        }
        return llmFinishedColumns(
          {
            http_status: response.http_status ?? null,
            response_headers: response.response_headers ?? {},
            normalized_text: normalized,
            stream: state,
            artifacts: finished,
            recorded: ctx.recorded,
            output_recorded: outputRecorded,
          },
          ctx.redactor,
        );
      },
      afterFinish: () => dropChunkBatches(llm_call_id, state),
    };
  },
};
