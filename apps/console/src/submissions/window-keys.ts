import type { EntityManager } from 'typeorm';
import { claimSubmissionKeys, findRuns, recordSubmissionKey, type SubmissionKeyRef } from '@baton/persistence';
import { errorBody } from '@baton/protocol';
import type { SubmissionOutcome } from './submission';

/** A submission to a debounced or throttled task: where it stands in its batch, its task and its fire key. */
export interface WindowKeyItem extends SubmissionKeyRef {
  at: number;
}

/** The idempotency keys of a batch's submissions to windowed tasks, taken or found. */
export interface WindowKeys {
  /** Whether the submission at `at` goes through its key's window: it has no idempotency key, or is its key's first. */
  takes(at: number): boolean;
  /**
   * Once the windows are applied and the runs inserted: each first submission's key remembers
   * what it got, and each repeat answers that (200 with the run, or the first's 409).
   */
  settle(em: EntityManager, outcomes: SubmissionOutcome[], taskName: (at: number) => string): Promise<void>;
}

/**
 * Idempotency for submissions to a task that debounces or throttles per key (key-windows.ts).
 * Such a submission joins or opens its key's window run instead of making a run named by its own
 * idempotency key, so that key lives in submission_keys: a repeat, from this batch, a later one
 * or another console, answers the run its first submission got (status 200), never joins a window
 * again (which would move its due time, or open a second window once the first has started) nor
 * takes a throttle's place again. A submission the throttle dropped is dropped again. Submissions
 * without a key (fire key `m:…`) pass untouched.
 */
export async function claimWindowKeys(em: EntityManager, tenantId: string, items: readonly WindowKeyItem[], now: number): Promise<WindowKeys> {
  const keyed = items.filter((item) => !item.fireKey.startsWith('m:'));
  const first = new Map<string, WindowKeyItem>();
  for (const item of keyed) if (!first.has(refOf(item))) first.set(refOf(item), item);
  const owners = [...first.values()];
  const claims = await claimSubmissionKeys(em, tenantId, owners, now);
  // The runs of the keys seen before, in one read (a batch may repeat up to 1,000 keys).
  const seenRuns = await findRuns(em, tenantId, claims.flatMap((c) => (c.kind === 'SEEN' && c.runId !== null ? [c.runId] : [])));
  /** What each key seen before got: its run (null: that submission was dropped). */
  const seen = new Map<string, SubmissionOutcome | null>();
  const taken = new Set<string>();
  for (const [i, claim] of claims.entries()) {
    const ref = refOf(owners[i]);
    const run = claim.kind === 'SEEN' && claim.runId !== null ? seenRuns.get(claim.runId) : undefined;
    if (claim.kind === 'CLAIMED') taken.add(ref);
    else if (claim.runId === null) seen.set(ref, null);
    else if (run) seen.set(ref, { status: 200, run, taskName: '' });
    // Its run is gone (the task keeps runs for less than its tenant keeps keys): the key is taken afresh.
    else taken.add(ref);
  }
  const byAt = new Map(keyed.map((item) => [item.at, item]));
  return {
    takes: (at) => {
      const item = byAt.get(at);
      return item === undefined || (taken.has(refOf(item)) && first.get(refOf(item)) === item);
    },
    settle: async (manager, outcomes, taskName) => {
      for (const ref of taken) {
        const owner = first.get(ref)!;
        const outcome = outcomes[owner.at];
        await recordSubmissionKey(manager, owner, 'run' in outcome ? outcome.run.id : null, now);
      }
      for (const item of keyed) {
        const ref = refOf(item);
        if (first.get(ref) === item && taken.has(ref)) continue;
        const earlier = seen.has(ref) ? seen.get(ref)! : outcomes[first.get(ref)!.at];
        outcomes[item.at] = earlier === null ? dropped() : 'run' in earlier ? { status: 200, run: earlier.run, taskName: taskName(item.at) } : earlier;
      }
    },
  };
}

function refOf(item: SubmissionKeyRef): string {
  return `${item.taskId}\u0000${item.fireKey}`;
}

/** A repeat of a submission the throttle dropped: dropped again, saying why. */
function dropped(): SubmissionOutcome {
  const reason = 'Throttled: the first submission with this idempotency key was dropped (throttle keep FIRST)';
  return { status: 409, error: errorBody(409, { message: reason, errors: [{ field: 'throttle', reason }] }) };
}
