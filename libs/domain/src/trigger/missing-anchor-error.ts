/**
 * FIXED_RATE and FIXED_DELAY count their fire times from an anchor: the schedule's `startAt`,
 * or its `createdAt` when `startAt` is null. Thrown when a schedule has neither — a caller bug
 * (the row has a creation time; pass it), never a user error.
 */
export class MissingAnchorError extends Error {
  readonly code = 'MISSING_ANCHOR';
  constructor(readonly kind: string) {
    super(`${kind} schedule needs startAt or createdAt to anchor its fire times`);
    this.name = 'MissingAnchorError';
  }
}
