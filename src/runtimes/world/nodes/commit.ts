/**
 * `world.commit`: the last node of a turn's run — the turn's one commit (`commit.ts`) happens inside
 * the run, so the run's completion event, which every stream of the run receives, follows the
 * committed turn. Re-executed after a crash that came after the commit, it finds the attempt already
 * committed and succeeds without committing again.
 */
import { isNoemaError } from '../../../core/errors.ts';
import type { NodeType } from '../../../engine/index.ts';
import type { Store } from '../../../store/store.ts';
import { commitTurn } from '../commit.ts';
import type { TurnContexts } from '../turn-context.ts';
import { channelsOf } from './shared.ts';

export function commitNode(store: Store, contexts: TurnContexts): NodeType<Record<string, never>> {
  return {
    type: 'world.commit',
    description:
      "Commits the turn: the accepted patches' versions, the turn row, patches, audit events, the head.",
    inputSchema: { type: 'object' },
    async execute(ctx) {
      const ch = channelsOf(ctx);
      const t = await contexts.get(ch.attempt);
      try {
        await commitTurn(store, ch.attempt, t.base, ch.patches, ch.marks);
      } catch (err) {
        if (!(isNoemaError(err) && err.code === 'ATTEMPT_NOT_COMMITTABLE')) throw err;
        const row = await store.get<{ status: string }>(
          'SELECT status FROM world_attempts WHERE attempt_id = ?',
          [ch.attempt.attempt_id],
        );
        if (row?.status !== 'committed') return { kind: 'fail', code: err.code, message: err.message };
      }
      contexts.committed(ch.attempt.attempt_id, ch.patches);
      return { kind: 'ok' };
    },
  };
}
