import { Injectable } from '@nestjs/common';

/** How many cancelled run ids are remembered (the oldest go first): far more than a second of cancels. */
const MOST_KEPT = 10_000;

/**
 * Runs the console cancelled lately, as its notices said (CancelledRuns): a run written already
 * sent (DirectStarts) has no start write of its own to find it CANCELLED, so its send looks here
 * first (RunStart). A cancel that lands after the send is the executor's abort's, as for any run.
 */
@Injectable()
export class RecentCancels {
  private readonly ids = new Set<number>();

  add(runIds: readonly number[]): void {
    for (const id of runIds) {
      this.ids.delete(id);
      this.ids.add(id);
    }
    for (const id of this.ids) {
      if (this.ids.size <= MOST_KEPT) break;
      this.ids.delete(id);
    }
  }

  has(runId: number): boolean {
    return this.ids.has(runId);
  }
}
