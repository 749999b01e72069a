import { Injectable } from '@nestjs/common';
import { OneAtATime } from '@baton/scheduling';
import { HeavyWorkQueueFullError } from './heavy-work-queue-full-error';
import { nextTurn } from './next-turn';

/** A tenant's heavy requests waiting behind the one running, beyond which the next is refused (429). */
export const MAX_HEAVY_WAITING = 20;

/** The 429 of a heavy route, for its OpenAPI description. */
export const HEAVY_WORK_BUSY = `This tenant's heavy requests (run searches, log downloads, exports, plans, applies, backfills) run one at a time and ${MAX_HEAVY_WAITING} already wait; \`Retry-After\` gives the seconds to wait`;

/**
 * A tenant's heavy requests — run searches (each examines up to 20,000 runs, 5,000 on SQLite in slices of 1,000: SEARCH_SCAN), log downloads (a
 * run keeps up to 5,000 lines of 8,000 characters: 40 MB), tasks-as-code export, plan and apply,
 * backfills — run one at a time per tenant, other tenants' alongside.
 * Why: forty searches sent at once by one tenant held the database's connections and cores, and
 * another tenant's plain list calls went from p99 9 ms to 1,011 ms (docs/BENCHMARKS.md, "Heavy
 * neighbour"); one at a time, a tenant's heavy work takes a core at most. More than
 * MAX_HEAVY_WAITING waiting are refused rather than queued without end.
 */
@Injectable()
export class TenantHeavyWork {
  private readonly lane = new OneAtATime();

  run<T>(tenantId: string, job: () => Promise<T>): Promise<T> {
    if (this.lane.pending(tenantId) > MAX_HEAVY_WAITING) return Promise.reject(new HeavyWorkQueueFullError(MAX_HEAVY_WAITING));
    // Each job starts on a turn of the event loop of its own. On SQLite (better-sqlite3 answers
    // synchronously) a search would otherwise run to its end in the turn its request arrived in:
    // the lane never held a second one, so 60 searches sent at once all ran (none refused) and
    // another tenant's GET waited behind all of them. Deferred, the searches that arrive together
    // wait in the lane — past MAX_HEAVY_WAITING they are refused — and other tenants' requests are
    // served between two of them.
    return this.lane.run(tenantId, async () => {
      await nextTurn();
      return job();
    });
  }

  /**
   * Takes the tenant's lane for an answer streamed after the handler returns (a log download):
   * resolves, once the lane is this request's, with the function that gives it back — to be
   * called when the answer ends or its client leaves (calling it again does nothing).
   */
  hold(tenantId: string): Promise<() => void> {
    if (this.lane.pending(tenantId) > MAX_HEAVY_WAITING) return Promise.reject(new HeavyWorkQueueFullError(MAX_HEAVY_WAITING));
    return new Promise((granted) => void this.lane.run(tenantId, () => new Promise<void>((release) => granted(release))));
  }
}
