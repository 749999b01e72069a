import { Injectable } from '@nestjs/common';

/**
 * In-process notice that this node has just committed runs due now that nobody has claimed — a
 * fan-out run's shards —, so the claimer claims at once instead of at its next poll
 * (BATON_CLAIM_INTERVAL_MS: up to 200 ms of every shard's lateness). Other engines of the group
 * find them by their poll, as they find any new run.
 */
@Injectable()
export class ClaimSignal {
  private readonly listeners: Array<() => void> = [];

  onNewRuns(listener: () => void): void {
    this.listeners.push(listener);
  }

  newRuns(): void {
    for (const listener of this.listeners) listener();
  }
}
