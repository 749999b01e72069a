import type { ClaimedRun } from '../common/claimed-run';

/**
 * A run whose start is only its DISPATCHED mark (RunStart): concurrency ALLOW, or a shard, and not
 * a fan-out run. Only such a run leaves ahead of its instant (the on-time lane's lead, or sent
 * ahead to an executor that starts it then) — a FORBID or REPLACE run looks at its task's other
 * runs, and a fan-out run writes its shards, as of its instant.
 */
export function startsByMark(run: ClaimedRun): boolean {
  return run.shard !== null || (run.concurrencyPolicy === 'ALLOW' && run.fanOut.mode === 'SINGLE');
}
