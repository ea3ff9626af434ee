/**
 * ECS answers (seed 000): `respondEcs` validates the user's answer against the form's field schema
 * and records it on the checkpoint (an invalid answer is SCHEMA_INVALID and changes nothing);
 * `continueEcs` loads the checkpoint, checks the contract is WAITING, resumes the run through the
 * engine (`WAITING → RUNNING → COMPLETED`, continuing at Reasoning) and deletes the checkpoint.
 * Both work from any process: everything they need is in the store.
 */
import { invalidInput, NoemaError } from '../../../core/index.ts';
import { schemas } from '../../../core/schema-registry.ts';
import type { Json } from '../../../engine/index.ts';
import type { AgentContext } from '../context.ts';
import { getCheckpointOrThrow, recordResponse } from './checkpoints.ts';
import { driveRun, type TurnResult } from './drive.ts';
import type { SessionEvent } from './events.ts';
import { SessionEventRecorder } from './recorder.ts';
import { claimSession, findSession, getSessionOrThrow } from './session-store.ts';

const RESPOND_SCHEMA = {
  type: 'object',
  required: ['session_id', 'contract_id', 'response'],
  additionalProperties: false,
  properties: {
    session_id: { type: 'string', minLength: 1, maxLength: 64 },
    contract_id: { type: 'string', minLength: 1, maxLength: 128 },
    response: { type: 'object' },
  },
};

const CONTINUE_SCHEMA = {
  type: 'object',
  required: ['session_id'],
  additionalProperties: false,
  properties: { session_id: { type: 'string', minLength: 1, maxLength: 64 } },
};

async function waitingContract(cx: AgentContext, session_id: string, contract_id: string) {
  const cp = await getCheckpointOrThrow(cx.store, session_id);
  if (cp.contract_id !== contract_id)
    throw new NoemaError(
      'UNKNOWN_CONTRACT',
      `session ${session_id} waits on ${cp.contract_id}, not ${contract_id}`,
      {
        status: 404,
        details: { session_id, contract_id, waiting: cp.contract_id },
      },
    );
  const contract = await cx.engine.getContract(contract_id);
  if (contract.status !== 'WAITING')
    throw new NoemaError('INVALID_TRANSITION', `contract ${contract_id} is ${contract.status}, not WAITING`, {
      status: 409,
      details: { contract_id, status: contract.status },
    });
  return { cp, contract };
}

export async function respondEcs(
  cx: AgentContext,
  input: unknown,
): Promise<{ session_id: string; contract_id: string; recorded: true }> {
  const r = schemas.validate<{ session_id: string; contract_id: string; response: Record<string, unknown> }>(
    RESPOND_SCHEMA,
    input,
  );
  if (!r.ok) throw invalidInput('ECS response is invalid', { errors: r.errors });
  const { session_id, contract_id, response } = r.value;
  await getSessionOrThrow(cx.store, session_id);
  const { contract } = await waitingContract(cx, session_id, contract_id);
  const schema = (contract.payload as { response_schema?: Record<string, unknown> }).response_schema ?? {};
  schemas.assertValid(schema, response, {
    code: 'SCHEMA_INVALID',
    what: `answer to ECS form ${contract_id}`,
  });
  if (!(await recordResponse(cx.store, session_id, contract_id, response)))
    throw new NoemaError('NO_CHECKPOINT', `session ${session_id} no longer waits on ${contract_id}`, {
      status: 409,
    });
  return { session_id, contract_id, recorded: true };
}

export async function continueEcs(
  cx: AgentContext,
  input: unknown,
  onEvent: (e: SessionEvent) => void = () => {},
): Promise<TurnResult> {
  const r = schemas.validate<{ session_id: string }>(CONTINUE_SCHEMA, input);
  if (!r.ok) throw invalidInput('ECS continue request is invalid', { errors: r.errors });
  const { session_id } = r.value;
  await getSessionOrThrow(cx.store, session_id); // UNKNOWN_SESSION first
  const cp = await getCheckpointOrThrow(cx.store, session_id);
  await waitingContract(cx, session_id, cp.contract_id);
  if (cp.response === null)
    throw new NoemaError('ECS_NO_RESPONSE', `no answer recorded for ECS form ${cp.contract_id}`, {
      status: 409,
      details: { session_id, contract_id: cp.contract_id },
      hint: 'POST /ecs/respond { session_id, contract_id, response } first',
    });
  // The continuation opens in one transaction: the claim (`waiting → running`) and its event.
  const rec = new SessionEventRecorder(cx.store, session_id, cp.run_id, onEvent);
  const claim = { run_id: cp.run_id, owner: cx.engine.owner, lease_ms: cx.claimLeaseMs };
  const claimed = await rec.commitWith(async (tx, add) => {
    const row = await claimSession(tx, session_id, 'waiting', claim);
    if (row) await add('status', { phase: 'continuing' });
    return row;
  });
  if (!claimed) {
    const now = await findSession(cx.store, session_id);
    throw new NoemaError('SESSION_BUSY', `session ${session_id} is ${now?.status ?? 'gone'}`, {
      status: 409,
      details: { session_id, status: now?.status ?? null },
    });
  }
  // The claimed row: the turn closes under this claim (closeTurn).
  return driveRun(
    cx,
    { ...claimed, status: 'running', run_id: cp.run_id },
    cp.run_id,
    () => cx.engine.resume(cp.run_id, cp.contract_id, cp.response as Json),
    rec,
    { answered: cp.contract_id },
  );
}
