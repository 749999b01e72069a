import { Injectable } from '@nestjs/common';

/**
 * In-process notice that a fan-out run may be ready to end but the shard transaction that noticed
 * could not tell (another shard was still going, as far as it could see): FanOutSettler listens
 * and looks again once that transaction has committed. Kept apart so RunOutcomes, which nudges,
 * and the settler, which calls RunOutcomes, do not depend on each other.
 */
@Injectable()
export class FanOutNudges {
  private readonly listeners: Array<(fanOutRunId: number) => void> = [];

  onNudge(listener: (fanOutRunId: number) => void): void {
    this.listeners.push(listener);
  }

  nudge(fanOutRunId: number): void {
    for (const listener of this.listeners) listener(fanOutRunId);
  }
}
