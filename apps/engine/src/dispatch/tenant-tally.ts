/** Counts of held runs by tenant (the claimer's budgets are per tenant). */
export class TenantTally {
  private readonly counts = new Map<string, number>();

  of(tenantId: string): number {
    return this.counts.get(tenantId) ?? 0;
  }

  add(tenantId: string): void {
    this.counts.set(tenantId, this.of(tenantId) + 1);
  }

  remove(tenantId: string): void {
    const n = this.of(tenantId) - 1;
    if (n > 0) this.counts.set(tenantId, n);
    else this.counts.delete(tenantId);
  }

  clear(): void {
    this.counts.clear();
  }
}
