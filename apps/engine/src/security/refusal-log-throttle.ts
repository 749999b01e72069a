/**
 * When to write a log line about a tenant's refused requests — pure (`now` passed in). A tenant
 * flooding an engine is refused thousands of times a second: one line per tenant per
 * `everyMs`, saying how many were refused since the last one, tells the operator who and how
 * much without the log becoming a second flood.
 */
export class RefusalLogThrottle {
  private readonly tenants = new Map<string, { loggedAt: number; refused: number }>();

  constructor(
    private readonly everyMs: number,
    /** Tenants remembered at most; past it the memory is dropped (a line may come early). */
    private readonly maxTenants = 10_000,
  ) {}

  /** Counts one refusal of `tenantId`; returns how many to report now (this one included), or 0 to stay quiet. */
  refused(tenantId: string, now: number): number {
    const entry = this.tenants.get(tenantId);
    if (entry && now - entry.loggedAt < this.everyMs) {
      entry.refused++;
      return 0;
    }
    if (!entry && this.tenants.size >= this.maxTenants) this.tenants.clear();
    const refused = (entry?.refused ?? 0) + 1;
    this.tenants.set(tenantId, { loggedAt: now, refused: 0 });
    return refused;
  }
}
