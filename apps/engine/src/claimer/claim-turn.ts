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

/**
 * A wake-up's runs of tasks that hold, with them, at most this many runs on this engine are claimed by id
 * even when their tenant's budget is full, the tenant then at most this many runs over it: one
 * task's backlog fills the budget, and without this its tenant's other tasks' runs waited in the
 * database until the backlog's runs claimed before them were sent (bench task-backlog --bulk-ms:
 * a trigger of the other task started seconds later, behind the backlog's held runs).
 */
export const TASK_OVERDRAFT = 16;

/** Most tenants one claim statement reads (one range per tenant and state): bounds a turn's cost however many tenants there are. */
export const TENANTS_PER_TURN = 100;

/** Places of a turn kept for idle tenants however many are active: a tenant's first due run is found within a few polls. */
export const IDLE_PLACES = 20;

export interface TenantLoad extends ClaimTenantRow {
  /** Runs of it this node holds (not yet sent). */
  held: number;
  /** Runs of it this node's executors accepted within the last look-ahead (TenantPace): what they can take in the next. */
  recentlyAccepted: number;
  /** It had due work lately: it competes for the engine's held runs with its full budget. */
  active: boolean;
  /** Its last read filled its allotment, so more of its runs are probably due: it is read every poll (DRR's active list). */
  backlogged: boolean;
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
  return budgetTable(tenants, options).budgets;
}

/**
 * tenantBudgets, with what is left for the tenants not given (`spare`): a tenant without due work
 * lately takes part in no division, so its budget (idleBudget) needs only the spare — the claimer
 * passes the tenants that are active or backlogged and works an idle one's out when it needs it.
 */
export function budgetTable(tenants: readonly TenantLoad[], options: { maxHeld: number; engines: number }): { budgets: Map<string, number>; spare: number } {
  const engines = Math.max(1, options.engines);
  const busy = tenants.filter((t) => t.active);
  const budgets = fairShares(
    options.maxHeld,
    busy.map((t) => ({ key: t.id, weight: Math.max(0, t.claimShare), cap: capOf(t, engines) })),
  );
  let used = 0;
  for (const b of budgets.values()) used += b;
  const spare = Math.max(MIN_TENANT_HELD, options.maxHeld - used);
  for (const t of tenants) if (!t.active) budgets.set(t.id, idleBudget(t, spare, engines));
  return { budgets, spare };
}

/** The budget of a tenant without due work lately: its cap, out of what the busy ones leave. */
export function idleBudget(t: Pick<TenantLoad, 'executorRoom' | 'recentlyAccepted'>, spare: number, engines: number): number {
  return Math.min(capOf(t, Math.max(1, engines)), spare);
}

function capOf(t: Pick<TenantLoad, 'executorRoom' | 'recentlyAccepted'>, engines: number): number {
  return Math.max(MIN_TENANT_HELD, Math.ceil((HELD_PER_ROOM * t.executorRoom) / engines) + t.recentlyAccepted);
}

export interface ClaimTurn {
  /** The tenants read this turn and their allotments. */
  takes: TenantTake[];
  /** Where the next turn starts among the active tenants, and among the idle ones. */
  nextCursor: { active: number; idle: number };
  /** Backlogged tenants with room, and how many of them this turn read (the claimer's round: turns follow at once until all were read). */
  active: number;
  activeRead: number;
}

/**
 * One claim turn's plan: up to TENANTS_PER_TURN tenants with room (budget − held) — the backlogged
 * ones first (their last read filled its allotment: all of them every poll, round the list from `cursor.active`, turns
 * following at once until each was read), then idle ones in the places left (IDLE_PLACES at
 * least), round their own list from `cursor.idle` — and the turn's `batch` divided among them by weighted max-min
 * fair shares of their room: **deficit round robin's outcome in one step**. A tenant that wants
 * less than its part leaves the rest to the others, and one that wants more gets its part,
 * however large its backlog. A turn reads at most TENANTS_PER_TURN ranges whatever the number of
 * tenants: 1,000 idle tenants are looked at 100 a poll (each about every 2 s at the default
 * BATON_CLAIM_INTERVAL_MS; 20 a turn while 80 or more are backlogged), not all 1,000 each poll (measured: 229 ms of MariaDB a poll).
 */
export function planClaimTurn(tenants: readonly TenantLoad[], budgets: ReadonlyMap<string, number>, options: { batch: number; cursor: { active: number; idle: number } }): ClaimTurn {
  const withRoom = tenants
    .map((tenant) => ({ tenant, room: (budgets.get(tenant.id) ?? 0) - tenant.held }))
    .filter((p) => p.room > 0 && p.tenant.claimShare > 0);
  const active = withRoom.filter((p) => p.tenant.backlogged);
  const idle = withRoom.filter((p) => !p.tenant.backlogged);
  const picked = rotate(active, options.cursor.active).slice(0, TENANTS_PER_TURN - IDLE_PLACES);
  const idlePicked = rotate(idle, options.cursor.idle).slice(0, TENANTS_PER_TURN - picked.length);
  picked.push(...idlePicked);
  const allot = fairShares(
    options.batch,
    picked.map((p) => ({ key: p.tenant.id, weight: p.tenant.claimShare, cap: p.room })),
  );
  const takes = picked.map((p) => ({ tenantId: p.tenant.id, engineGroup: p.tenant.engineGroup, limit: allot.get(p.tenant.id) ?? 0 })).filter((t) => t.limit > 0);
  // Served whole, a list starts one further on next time, so the rounding's remainders rotate.
  const next = (list: readonly unknown[], cursor: number, served: number) => (list.length === 0 ? 0 : (cursor + (served < list.length ? served : 1)) % list.length);
  return {
    takes,
    nextCursor: { active: next(active, options.cursor.active, Math.min(active.length, TENANTS_PER_TURN - IDLE_PLACES)), idle: next(idle, options.cursor.idle, idlePicked.length || 1) },
    active: active.length,
    activeRead: picked.length - idlePicked.length,
  };
}

/** The list from `start` (modulo its length) round to just before it. */
function rotate<T>(list: readonly T[], start: number): T[] {
  if (list.length === 0) return [];
  const at = start % list.length;
  return [...list.slice(at), ...list.slice(0, at)];
}
