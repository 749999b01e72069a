/**
 * The history job of a tenant moved to another engine while this one worked on it (it stalled
 * past its lease): this engine's unfinished step is rolled back and the tenant left to the other.
 */
export class LostHistoryLeaseError extends Error {
  readonly code = 'LOST_HISTORY_LEASE';

  constructor(readonly tenantId: string) {
    super(`the history job of tenant ${tenantId} was taken over by another engine`);
    this.name = 'LostHistoryLeaseError';
  }
}
