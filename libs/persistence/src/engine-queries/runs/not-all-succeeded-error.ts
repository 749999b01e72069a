/** Thrown by finishSucceededRuns({ expectAll: true }) when some attempt did not move: roll back and ask again without it. */
export class NotAllSucceededError extends Error {
  readonly code = 'NOT_ALL_SUCCEEDED';

  constructor(moved: number, asked: number) {
    super(`finishSucceededRuns: ${moved} of ${asked} attempts moved; the transaction must be rolled back`);
  }
}
