/**
 * Counts of runs by tenant: held (the claimer's budgets are per tenant), in flight (the slots a
 * tenant may hold); or by task (keyed by taskKey: a task holding few runs may be claimed past its
 * tenant's budget, ClaimerService.readNamed).
 */
export class TenantTally {
  private readonly counts = new Map<string, number>();

  of(tenantId: string): number {
    return this.counts.get(tenantId) ?? 0;
  }

  /** Tenants with a count. */
  get size(): number {
    return this.counts.size;
  }

  /** How many tenants other than this one have a count. */
  othersThan(tenantId: string): number {
    return this.counts.size - (this.counts.has(tenantId) ? 1 : 0);
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

/** A TenantTally's key for a task of a tenant (task ids are the database's, unique across tenants; the tenant keeps the key readable). */
export function taskKey(tenantId: string, taskId: number): string {
  return `${tenantId}\u0000${taskId}`;
}
