import { fairShares } from '@baton/scheduling';
import type { ClaimTenantRow, TenantTake } from '@baton/persistence';

/**
 * A tenant holds at most this many runs per place its executors advertise (workers + queue):
 * enough that the credit gate has the next runs at hand whenever a place frees up, with time to
 * refill by a claim round trip (tens of ms) — more would only sit in this engine's memory while
 * other tenants' runs wait in the database.
 */
export const HELD_PER_ROOM = 2;

/**
 * A tenant's budget never falls below this (its executors advertise no room, none is up yet, or
 * it only just got due work): a few runs in hand find out whether an executor takes them now.
 */
export const MIN_TENANT_HELD = 16;

/** Most tenants one claim statement reads (one range per tenant and state): bounds a turn's cost however many tenants there are. */
export const TENANTS_PER_TURN = 100;

export interface TenantLoad extends ClaimTenantRow {
  /** Runs of it this node holds (not yet sent). */
  held: number;
  /** Runs of it this node's executors accepted within the last look-ahead (TenantPace): what they can take in the next. */
  recentlyAccepted: number;
  /** It had due work lately: it competes for the engine's held runs with its full budget. */
  active: boolean;
}

/**
 * Each tenant's budget of held runs on this engine — **weighted max-min fair shares** of
 * `maxHeld` (fairShares) among the tenants with due work lately, each capped by what its
 * executors can take soon: HELD_PER_ROOM × their advertised room, split between the `engines`
 * serving the group as executor credit is (each engine its ⌈1/k⌉), plus what they accepted from
 * this engine in the last look-ahead (quick handlers take many times their places in that time:
 * without it a 4,000-run burst on 2 × 16 workers was held 32 at a time, a claim round trip each,
 * and its dispatch p99 went from ~1.2 s to 2.8 s). A tenant without due work
 * lately takes part in no division, so idle tenants reserve nothing; should work come, it may
 * hold up to its cap out of what the busy ones leave (at least MIN_TENANT_HELD), and from its
 * next turn on it is one of them.
 */
export function tenantBudgets(tenants: readonly TenantLoad[], options: { maxHeld: number; engines: number }): Map<string, number> {
  const engines = Math.max(1, options.engines);
  const capOf = (t: TenantLoad) => Math.max(MIN_TENANT_HELD, Math.ceil((HELD_PER_ROOM * t.executorRoom) / engines) + t.recentlyAccepted);
  const busy = tenants.filter((t) => t.active);
  const budgets = fairShares(
    options.maxHeld,
    busy.map((t) => ({ key: t.id, weight: Math.max(0, t.claimShare), cap: capOf(t) })),
  );
  let used = 0;
  for (const b of budgets.values()) used += b;
  const spare = Math.max(MIN_TENANT_HELD, options.maxHeld - used);
  for (const t of tenants) if (!t.active) budgets.set(t.id, Math.min(capOf(t), spare));
  return budgets;
}

export interface ClaimTurn {
  /** The tenants read this turn and their allotments (rotation order). */
  takes: TenantTake[];
  /** Where the next turn starts in the tenant list. */
  nextCursor: number;
  /** How many tenants of the list this turn looked at (with room or not). */
  visited: number;
}

/**
 * One claim turn's plan: the next TENANTS_PER_TURN tenants with room (budget − held), from
 * `cursor` round the list (a rotating start, so no tenant is always served first or always gets
 * the rounding's remainders), and the turn's `batch` divided among them by weighted max-min fair
 * shares of their room — **deficit round robin's outcome in one step**: a tenant that wants less
 * than its part leaves the rest to the others, and one that wants more gets its part, however
 * large its backlog. Its cost depends on TENANTS_PER_TURN and the batch, not on the number of
 * tenants or runs.
 */
export function planClaimTurn(tenants: readonly TenantLoad[], budgets: ReadonlyMap<string, number>, options: { batch: number; cursor: number }): ClaimTurn {
  const n = tenants.length;
  const picked: Array<{ tenant: TenantLoad; room: number }> = [];
  let visited = 0;
  for (; visited < n && picked.length < TENANTS_PER_TURN; visited++) {
    const tenant = tenants[(options.cursor + visited) % n];
    const room = (budgets.get(tenant.id) ?? 0) - tenant.held;
    if (room > 0 && tenant.claimShare > 0) picked.push({ tenant, room });
  }
  const allot = fairShares(
    options.batch,
    picked.map((p) => ({ key: p.tenant.id, weight: p.tenant.claimShare, cap: p.room })),
  );
  const takes = picked.map((p) => ({ tenantId: p.tenant.id, engineGroup: p.tenant.engineGroup, limit: allot.get(p.tenant.id) ?? 0 })).filter((t) => t.limit > 0);
  // A whole round in one turn: start one further on next time, so the remainders rotate.
  const nextCursor = n === 0 ? 0 : (options.cursor + (visited < n ? visited : 1)) % n;
  return { takes, nextCursor, visited };
}
