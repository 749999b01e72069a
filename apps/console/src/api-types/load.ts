import type { TenantLoad } from '@baton/domain/load/tenant-load';

export type { ExecutorCapacity, LoadCount, TenantLoad } from '@baton/domain/load/tenant-load';

/** GET /load (a tenant's own) and GET /operator/load (every tenant, the oldest due run first, at most `limit`). */
export interface LoadBoard {
  /** The instant the figures are of (epoch ms). */
  at: number;
  /** Counts stop at this (a count at it reads "10,000+"). */
  countCap: number;
  /** Tenants in all (the operator's board lists the first `limit` of them). */
  tenants: number;
  items: TenantLoad[];
}
