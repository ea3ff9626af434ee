/**
 * The one commit of a turn (seed 004 "Kernel execution model"): in one transaction, the
 * versions of every entity and environment the accepted patches changed, the turn row, each
 * patch with its transitions, one audit event per patch with its touched entities, the world's
 * head, the attempt's summary and the output kinds of its accepted generations. It commits only while the attempt is still running and the
 * world's head is the turn before, so a turn is never committed twice.
 */
import { NoemaError } from '../../core/errors.ts';
import type { Store } from '../../store/store.ts';
import { sourceSummary } from './attempts.ts';
import { insertBatched } from './batched-insert.ts';
import { type OutputMark, writeOutputMarks } from './nodes/shared.ts';
import { writeSnapshot } from './snapshots.ts';
import { versionRows, writeVersions } from './state.ts';
import type { AttemptInput, StagedPatch } from './turn-context.ts';
import { applyWorldPatch, readTransition, type WorkingWorld } from './world-patch.ts';

export async function commitTurn(
  store: Store,
  attempt: AttemptInput,
  base: WorkingWorld,
  patches: readonly StagedPatch[],
  marks: readonly OutputMark[] = [],
): Promise<void> {
  const touched = (p: StagedPatch) => {
    const ids = new Map<string, { kind: 'entity' | 'environment'; id: string; ops: string[] }>();
    for (const e of p.patch.effects) {
      const key = 'entity_id' in e ? `e:${e.entity_id}` : `v:${e.environment_label}`;
      const rec = ids.get(key) ?? {
        kind: 'entity_id' in e ? ('entity' as const) : ('environment' as const),
        id: 'entity_id' in e ? e.entity_id : e.environment_label,
        ops: [],
      };
      rec.ops.push(e.op);
      ids.set(key, rec);
    }
    return [...ids.values()];
  };
  // Apply to an overlay holding only what the patches touch: the commit costs what changed,
  // not the size of the world.
  const world: WorkingWorld = { entities: new Map(), environments: new Map() };
  for (const p of patches)
    for (const e of p.patch.effects) {
      if (e.op === 'set_environment_content')
        world.environments.set(e.environment_label, base.environments.get(e.environment_label)!);
      else world.entities.set(e.entity_id, base.entities.get(e.entity_id)!);
    }
  const entities = new Map<string, string | null>();
  const environments = new Set<string>();
  for (const p of patches) {
    applyWorldPatch(world, p.patch);
    for (const e of p.patch.effects) {
      if (e.op === 'set_environment_content') environments.add(e.environment_label);
      else if (e.op === 'append_entity_memory') {
        const prev = entities.get(e.entity_id);
        entities.set(e.entity_id, prev ? `${prev}\n${e.content}` : e.content);
      } else if (!entities.has(e.entity_id)) entities.set(e.entity_id, null);
    }
  }
  const { attempt_id, world_slug, attempted_turn: turn } = attempt;
  const rows = versionRows(world_slug, turn, world, { entities, environments });
  await store.transaction(async (tx) => {
    const head = await tx.get<{ change_bytes: number; snapshot_bytes: number }>(
      `UPDATE worlds SET head_turn = ?, change_bytes = change_bytes + ? WHERE world_slug = ? AND head_turn = ?
       RETURNING change_bytes, snapshot_bytes`,
      [turn, rows.bytes, world_slug, turn - 1],
    );
    const summary = await sourceSummary(tx, attempt_id);
    const now = Date.now();
    const done = await tx.run(
      `UPDATE world_attempts SET status = 'committed', source_invocation_count = ?, last_source_invocation_id = ?,
         source_trace_summary = ?, ended_at = ? WHERE attempt_id = ? AND status = 'running'`,
      [
        summary.source_invocation_count,
        summary.last_source_invocation_id,
        JSON.stringify({ ...summary.source_trace_summary, patch_count: patches.length }),
        now,
        attempt_id,
      ],
    );
    if (!head || done.changes !== 1) {
      throw new NoemaError(
        'ATTEMPT_NOT_COMMITTABLE',
        `attempt ${attempt_id} can no longer commit turn ${turn}`,
        {
          details: { attempt_id, world_slug, turn },
        },
      );
    }
    await writeVersions(tx, rows);
    await writeOutputMarks(tx, marks);
    // Snapshot policy: a whole-world snapshot once the changes since the last one outweigh it.
    if (Number(head.change_bytes) > Number(head.snapshot_bytes)) {
      const whole: WorkingWorld = {
        entities: new Map(base.entities),
        environments: new Map(base.environments),
      };
      for (const [id, e] of world.entities) whole.entities.set(id, e);
      for (const [label, v] of world.environments) whole.environments.set(label, v);
      const size = await writeSnapshot(tx, world_slug, turn, whole);
      await tx.run('UPDATE worlds SET change_bytes = 0, snapshot_bytes = ? WHERE world_slug = ?', [
        size,
        world_slug,
      ]);
    }
    await tx.run(
      'INSERT INTO world_turns (world_slug, turn, attempt_id, simulation_time, patch_count, committed_at) VALUES (?, ?, ?, ?, ?, ?)',
      [world_slug, turn, attempt_id, attempt.simulation_time, patches.length, now],
    );
    await insertBatched(
      tx,
      `INSERT INTO world_patches (attempt_id, patch_seq, world_slug, turn, subject_entity_id, workflow_hash, workflow_node_id,
         source_invocation_id, narration, effects_json, transitions_json)`,
      '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      patches.map((p) => [
        attempt_id,
        p.patch_seq,
        world_slug,
        turn,
        p.subject_entity_id,
        p.workflow_hash,
        p.workflow_node_id,
        p.source_invocation_id,
        p.patch.narration,
        JSON.stringify(p.patch.effects),
        // A run staged before the rename holds the old names; the row gets the seed's.
        JSON.stringify(p.transitions.map(readTransition)),
      ]),
    );
    await insertBatched(
      tx,
      `INSERT INTO world_audit_events (world_slug, turn, attempt_id, event_type, patch_seq, workflow_subject_entity_id,
         source_invocation_id, cognition_workflow_hash, response_source_hash, workflow_node_id, touched_json, data_json, created_at)`,
      "(?, ?, ?, 'world_patch_applied', ?, ?, ?, ?, (SELECT source_hash FROM source_invocations WHERE source_invocation_id = ?), ?, ?, ?, ?)",
      patches.map((p) => [
        world_slug,
        turn,
        attempt_id,
        p.patch_seq,
        p.subject_entity_id,
        p.source_invocation_id,
        p.workflow_hash,
        p.source_invocation_id,
        p.workflow_node_id,
        JSON.stringify(touched(p)),
        JSON.stringify({ narration: p.patch.narration }),
        now,
      ]),
    );
    await tx.run(
      `INSERT INTO world_audit_events (world_slug, turn, attempt_id, event_type, touched_json, data_json, created_at)
       VALUES (?, ?, ?, 'turn_committed', '[]', ?, ?)`,
      [world_slug, turn, attempt_id, JSON.stringify({ patch_count: patches.length }), now],
    );
  });
}
