import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { checkExecutorUrl, CLOCK, type Clock, type ExecutorNetworks, type ExecutorWire } from '@baton/domain';
import { findUpExecutors, TableSnapshot, type UpExecutorRow } from '@baton/persistence';
import { createRoutingStrategy, type ExecutorCandidate, type RoutingStrategy } from '@baton/scheduling';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';

/** An UP executor the dispatcher may send a run to, best first. */
export interface RoutedExecutor extends ExecutorCandidate {
  executorId: number;
  url: string;
  /** Queue places beyond `capacity` (its heartbeat's; 0 when it does not say). */
  queueLimit: number;
  /** The protocol it speaks: from 2 it takes a run ahead of its instant (`startInMs`) and starts it then. */
  protocolVersion: number;
  /** How it is spoken to: the executor protocol, or XXL-JOB's (XxlJobClient). */
  wire: ExecutorWire;
}

/** The first protocol version whose executors hold a run sent ahead until its instant. */
export const STARTS_AT_INSTANT_FROM = 2;

/** The routing table is re-read when older than this (executors register and go DOWN in seconds). */
export const REGISTRY_MAX_AGE_MS = 1_000;

/**
 * The node's view of the executor registry: UP executors of its groups' tenants, by (tenant,
 * executor app), read from the database at most about once a second — on demand, when a
 * dispatch finds the table older than that (no background timer: an engine that is not started
 * reads nothing). Between reads, `inFlight` of each executor is its last heartbeat's figure
 * plus the runs this node got accepted there since, so LEAST_BUSY does not send a burst to the
 * executor that looked idle a second ago.
 * One routing strategy (round-robin cursor, hash ring) per (tenant, app).
 */
@Injectable()
export class ExecutorRegistry {
  private readonly logger = new Logger('ExecutorRegistry');
  private readonly table: TableSnapshot<RoutingTable>;
  private readonly strategies = new Map<string, RoutingStrategy>();
  private readonly sentSinceRefresh = new Map<number, number>();
  private readonly urlVerdicts = new WeakMap<readonly string[], Map<string, boolean>>();

  constructor(
    dataSource: DataSource,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    @Inject(CLOCK) clock: Clock,
  ) {
    this.table = new TableSnapshot(
      async () => {
        const table = routingTableOf(await findUpExecutors(dataSource.manager, config.groups));
        this.sentSinceRefresh.clear();
        return table;
      },
      {
        initial: { byApp: new Map(), secretVersions: new Map(), wires: new Map(), startingAtInstant: new Set() },
        now: () => clock.now(),
        onError: (err) => this.logger.warn(`reading the executor registry failed, routing on the last table: ${err.message}`),
      },
    );
  }

  /** Age of the routing table in ms. */
  get ageMs(): number {
    return this.table.ageMs;
  }

  /** Re-reads the routing table now (concurrent callers share one read; a failed read keeps the old table). */
  refresh(): Promise<void> {
    return this.table.refresh();
  }

  /** Re-reads the table if it is older than `maxAgeMs`. */
  async ensureFresh(maxAgeMs = REGISTRY_MAX_AGE_MS): Promise<void> {
    await this.table.fresh(maxAgeMs);
  }

  /**
   * The UP executors of a tenant's app in the order to try them: the configured routing
   * strategy's order, with `preferredExecutorId` first when it is UP (a run re-sent after a
   * takeover goes back to the executor that may have it already: the SDK de-duplicates by run
   * and attempt there, nowhere else). Only executors at URLs the tenant's `networks` allow
   * (checked again here, not just at registration: the operator may have narrowed the list).
   */
  candidates(tenantId: string, app: string, routingKey: string, preferredExecutorId: number | null, networks: ExecutorNetworks): RoutedExecutor[] {
    const key = appKey(tenantId, app);
    const rows = (this.table.value.byApp.get(key) ?? []).filter((r) => this.allows(networks, r.url));
    if (rows.length === 0) return [];
    let strategy = this.strategies.get(key);
    if (!strategy) {
      strategy = createRoutingStrategy(this.config.routing);
      this.strategies.set(key, strategy);
    }
    const candidates: RoutedExecutor[] = rows.map((r) => ({
      id: String(r.id),
      executorId: r.id,
      url: r.url,
      state: 'UP',
      capacity: r.capacity,
      queueLimit: r.queueLimit,
      protocolVersion: r.protocolVersion,
      wire: r.wire,
      inFlight: r.inFlight + (this.sentSinceRefresh.get(r.id) ?? 0),
    }));
    const ordered = strategy.order(candidates, { key: routingKey });
    if (preferredExecutorId === null) return ordered;
    const preferred = ordered.find((c) => c.executorId === preferredExecutorId);
    return preferred ? [preferred, ...ordered.filter((c) => c !== preferred)] : ordered;
  }

  /**
   * Whether every UP executor of the tenant's app starts a run sent ahead at its instant itself
   * (protocol 2): only then may its runs leave before their instant — one that went to an older
   * executor would wait for its instant in a dispatch slot.
   */
  startsAtInstant(tenantId: string, app: string): boolean {
    return this.table.value.startingAtInstant.has(appKey(tenantId, app));
  }

  /**
   * The tenant secret version that verified the latest heartbeat of the executor at `url` (as of
   * the last read), or null when unknown (not UP, or registered before versions were recorded).
   */
  secretVersionOf(tenantId: string, url: string): number | null {
    return this.table.value.secretVersions.get(urlKey(tenantId, url)) ?? null;
  }

  /** How the executor at `url` is spoken to (as of the last read); `baton` when it is not UP. */
  wireOf(tenantId: string, url: string): ExecutorWire {
    return this.table.value.wires.get(urlKey(tenantId, url)) ?? 'baton';
  }

  /** The tenant's UP XXL-JOB executors (as of the last read): the ones to beat. */
  xxlJobExecutors(): UpExecutorRow[] {
    return [...this.table.value.byApp.values()].flat().filter((r) => r.wire === 'xxl-job');
  }

  /** True when UP executors of the app exist but none at a URL `networks` allows (why a run found no candidate). */
  onlyRefusedUrls(tenantId: string, app: string, networks: ExecutorNetworks): boolean {
    const rows = this.table.value.byApp.get(appKey(tenantId, app)) ?? [];
    return rows.length > 0 && rows.every((r) => !this.allows(networks, r.url));
  }

  /**
   * checkExecutorUrl, remembered per list and URL: the tenant directory hands out the same list
   * object until it re-reads the tenant, so a changed list is a new cache key.
   */
  private allows(networks: ExecutorNetworks, url: string): boolean {
    const key = networks ?? NO_LIST;
    let verdicts = this.urlVerdicts.get(key);
    if (!verdicts) this.urlVerdicts.set(key, (verdicts = new Map()));
    let ok = verdicts.get(url);
    if (ok === undefined) verdicts.set(url, (ok = checkExecutorUrl(url, networks).ok));
    return ok;
  }

  /** A run was accepted by this executor (counts toward its load until the next read). */
  noteAccepted(executorId: number): void {
    this.sentSinceRefresh.set(executorId, (this.sentSinceRefresh.get(executorId) ?? 0) + 1);
  }
}

/** UP executors by (tenant, app), and the secret version that verified each one's latest heartbeat by (tenant, URL). */
interface RoutingTable {
  byApp: Map<string, UpExecutorRow[]>;
  secretVersions: Map<string, number | null>;
  /** How each is spoken to, by (tenant, URL). */
  wires: Map<string, ExecutorWire>;
  /** The (tenant, app) keys whose UP executors all start runs at their instant (protocol 2). */
  startingAtInstant: Set<string>;
}

function routingTableOf(rows: readonly UpExecutorRow[]): RoutingTable {
  const table: RoutingTable = { byApp: new Map(), secretVersions: new Map(), wires: new Map(), startingAtInstant: new Set() };
  for (const row of rows) {
    const key = appKey(row.tenantId, row.app);
    table.byApp.set(key, [...(table.byApp.get(key) ?? []), row]);
    table.secretVersions.set(urlKey(row.tenantId, row.url), row.secretVersion);
    table.wires.set(urlKey(row.tenantId, row.url), row.wire);
  }
  for (const [key, executors] of table.byApp) {
    // An XXL-JOB executor starts a trigger when it gets it: its app's runs leave at their instant.
    if (executors.every((e) => e.wire === 'baton' && e.protocolVersion >= STARTS_AT_INSTANT_FROM)) table.startingAtInstant.add(key);
  }
  return table;
}

/** The cache key of "no list" (WeakMap keys must be objects). */
const NO_LIST: readonly string[] = [];

function appKey(tenantId: string, app: string): string {
  return `${tenantId}\u0000${app}`;
}

function urlKey(tenantId: string, url: string): string {
  return `${tenantId}\u0000${url}`;
}
