/** A key's waiting items are over GroupCommitLimits.maxWaiting (group-commit.ts): the caller answers 429. */
export class LaneFullError extends Error {
  readonly code = 'LANE_FULL';
  constructor(readonly waiting: number) {
    super(`${waiting} waiting`);
  }
}
