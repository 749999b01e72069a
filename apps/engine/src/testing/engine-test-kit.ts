import type { DataSource } from 'typeorm';
import { firstFireTime, ManualClock, taskDefaults } from '@baton/domain';
import type { Clock, TaskDefinition, Trigger } from '@baton/domain';
import { RunEntity, TaskEntity, TenantEntity, taskDefinitionToColumns, type NamedRunColumns } from '@baton/persistence';
import type { ClaimedRun } from '../common/claimed-run';
import type { DueQueuePort } from '../claimer/due-queue-port';
import { readEngineConfig } from '../config/engine-config';
import type { EngineConfig } from '../config/engine-config';
import { EngineMetrics } from '../metrics/engine-metrics';
import { ClaimSignal } from '../common/claim-signal';
import { ClockWatch } from '../common/clock-watch';
import { ClaimerService } from '../claimer/claimer.service';
import { KeyAdmissions } from '../runs/key-admissions';
import type { CancelledRuns } from '../wakeups/cancelled-runs';
import { RunClaims } from '../runs/run-claims';
import { ClaimTenants } from '../claimer/claim-tenants';
import { TenantPace } from '../claimer/tenant-pace';
import { GroupPeers } from '../common/group-peers';
import { NodeLiveness } from '../common/node-liveness';
import { WokenRows } from '../common/woken-rows';
import { LeaseRenewerService } from '../claimer/lease-renewer.service';
import { PlannerService } from '../planner/planner.service';
import { EngineNodeService } from '../node/engine-node.service';
import { LivenessLock } from '../node/liveness-lock';
import { TakeoverService } from '../node/takeover/takeover.service';
import { EngineLifecycleService } from '../node/engine-lifecycle.service';

/** Test helpers of the engine's claim side (not part of the app). */

/** 2026-01-01T00:00:00Z: a round instant for ManualClock. */
export const T0 = Date.UTC(2026, 0, 1);

/**
 * A config with the defaults and fast timings; nothing read from the environment. Liveness locks
 * off unless asked for: tests build many claim sides with one node id and never stop most of them.
 */
export function testConfig(overrides: Partial<EngineConfig> = {}): EngineConfig {
  // The claim and planner specs count fires and claims within a 2 s look-ahead.
  return readEngineConfig({}, { nodeId: 'engine-a', groups: ['default'], databaseUrl: 'unused', livenessPollMs: 0, lookAheadMs: 2_000, sendAheadMs: 2_000, ...overrides });
}

/** Stands in for the dispatch side's DueQueue: keeps what it is given, dispatches nothing. */
export class FakeDueQueue implements DueQueuePort {
  readonly runs: ClaimedRun[] = [];
  /** Runs held by tenant, counted as the real queue does (O(1) a look-up: the claim bench asks for every tenant each turn). */
  private readonly byTenant = new Map<string, number>();
  private readonly ids = new Set<number>();
  refuse = false;
  /** Runs held when refreshRouting was last called (-1: never). */
  heldAtRoutingRefresh = -1;
  refreshRouting(): Promise<void> {
    this.heldAtRoutingRefresh = this.runs.length;
    return Promise.resolve();
  }
  accept(runs: ClaimedRun[]): void {
    if (this.refuse) throw new Error('queue closed');
    this.runs.push(...runs);
    for (const r of runs) {
      this.ids.add(r.runId);
      this.byTenant.set(r.tenantId, (this.byTenant.get(r.tenantId) ?? 0) + 1);
    }
  }
  get held(): number {
    return this.runs.length;
  }
  heldOf(tenantId: string): number {
    return this.byTenant.get(tenantId) ?? 0;
  }
  heldOfTask(tenantId: string, taskId: number): number {
    return this.runs.filter((r) => r.tenantId === tenantId && r.taskId === taskId).length;
  }
  holds(runId: number): boolean {
    return this.ids.has(runId);
  }
  /** Runs each tenant has waiting to be sent, as a test sets them (the fake sends nothing: none unless set). */
  readonly waiting = new Map<string, number>();
  waitingOf(tenantId: string): number {
    return this.waiting.get(tenantId) ?? 0;
  }
  /** Tenants whose runs are to wait for tokens (paced). */
  readonly pacedTenants = new Set<string>();
  paced(tenantId: string): boolean {
    return this.pacedTenants.has(tenantId);
  }
  onReleased(): void {
    // Dispatches nothing: nothing is ever released.
  }
  drain(): ClaimedRun[] {
    this.byTenant.clear();
    this.ids.clear();
    return this.runs.splice(0);
  }
}

/** The claim side's services, built by hand on a data source (no Nest needed). */
export function claimSide(dataSource: DataSource, config: EngineConfig, clock: Clock = new ManualClock(T0), queue = new FakeDueQueue()) {
  const metrics = new EngineMetrics({ defaultMetrics: false });
  const lock = new LivenessLock(dataSource, config);
  const liveness = new NodeLiveness(config, clock);
  const woken = new WokenRows(clock);
  const node = new EngineNodeService(dataSource, config, clock, lock, liveness, woken);
  const peers = new GroupPeers(dataSource, config, clock);
  const takeover = new TakeoverService(dataSource, config, clock, metrics, lock, peers);
  const planner = new PlannerService(dataSource, config, clock, metrics);
  const signal = new ClaimSignal(config, clock);
  // No executors on the claim side: runs a key cancels there were never sent, so there is nothing to abort.
  const noAborts = { abort: () => Promise.resolve() } as unknown as CancelledRuns;
  const claims = new RunClaims(dataSource, config, new KeyAdmissions(dataSource, config, clock, signal, noAborts, woken), woken);
  const clockWatch = new ClockWatch(dataSource, config, clock, metrics);
  const pace = new TenantPace();
  const claimer = new ClaimerService(dataSource, config, clock, metrics, queue, peers, new ClaimTenants(dataSource, config, clock), pace, claims, signal, clockWatch, liveness, woken);
  const leases = new LeaseRenewerService(dataSource, config, clock, metrics, queue, claims);
  const lifecycle = new EngineLifecycleService(dataSource, config, clock, metrics, node, takeover, planner, claimer, leases, queue, claims);
  return { config, clock, queue, metrics, lock, liveness, node, takeover, planner, claimer, leases, lifecycle, peers, signal, clockWatch, claims, woken, pace };
}

export interface TaskFixture extends Partial<Omit<TaskDefinition, 'trigger'>> {
  trigger: Trigger;
  engineGroup?: string;
  createdAt?: number;
  /** Default: the first fire time at or after createdAt (as the console stores it). */
  nextFireAt?: number | null;
  fireCount?: number;
}

let taskSeq = 0;

/** Inserts a task row the way the console would, and returns its id. */
export async function insertTask(dataSource: DataSource, fixture: TaskFixture): Promise<number> {
  const createdAt = fixture.createdAt ?? T0;
  const definition: TaskDefinition = {
    ...taskDefaults(),
    tenantId: 'acme',
    name: `task-${++taskSeq}`,
    executorApp: 'billing',
    handler: 'run',
    ...fixture,
  } as TaskDefinition;
  const fireCount = fixture.fireCount ?? 0;
  const nextFireAt =
    fixture.nextFireAt !== undefined
      ? fixture.nextFireAt
      : firstFireTime(
          { trigger: definition.trigger, startAt: definition.startAt, endAt: definition.endAt, maxFires: definition.maxFires, fireCount, calendar: null, createdAt },
          createdAt,
        );
  await ensureTenant(dataSource, definition.tenantId, fixture.engineGroup ?? 'default');
  const result = await dataSource.getRepository(TaskEntity).insert({
    ...taskDefinitionToColumns(definition, null),
    engineGroup: fixture.engineGroup ?? 'default',
    fireCount,
    nextFireAt,
    createdAt,
    updatedAt: createdAt,
    version: 1,
  });
  return Number(result.identifiers[0].id);
}

/** The tenant's row, made if missing: the claimer claims for the tenants its groups serve. */
export async function ensureTenant(dataSource: DataSource, id: string, engineGroup = 'default'): Promise<void> {
  if (await dataSource.getRepository(TenantEntity).existsBy({ id })) return;
  await dataSource.getRepository(TenantEntity).insert({ id, name: id, engineGroup, executorSecret: 'secret', createdAt: T0 });
}

/** An UP executor of the tenant advertising `room` places (capacity; no queue): what the claimer budgets by. */
export async function insertUpExecutor(dataSource: DataSource, tenantId: string, room: number, app = 'billing'): Promise<void> {
  await dataSource.query(
    `INSERT INTO executors (tenant_id, app, url, capacity, queue_limit, in_flight, state, handlers, heartbeat_at, registered_at) VALUES (?, ?, ?, ?, 0, 0, 'UP', '[]', ?, ?)`,
    [tenantId, app, `http://${tenantId}-${app}-${room}.test`, room, T0, T0],
  );
}

let runSeq = 0;

/** Inserts a run row (PENDING, due at T0 unless told otherwise) and returns its id. */
export async function insertRun(dataSource: DataSource, partial: Partial<RunEntity> & { taskId: number }): Promise<number> {
  const dueAt = partial.dueAt ?? T0;
  const result = await dataSource.getRepository(RunEntity).insert({
    tenantId: 'acme',
    engineGroup: 'default',
    state: 'PENDING',
    cause: 'SCHEDULE',
    fireKey: `t:${++runSeq}`,
    flowId: null,
    parentRunId: null,
    attempt: 1,
    priority: 0,
    params: { n: runSeq },
    scheduledAt: dueAt,
    dueAt,
    claimedBy: null,
    leaseUntil: null,
    executorId: null,
    createdAt: T0,
    updatedAt: T0,
    ...partial,
  });
  return Number(result.identifiers[0].id);
}

export async function runsOf(dataSource: DataSource, taskId?: number): Promise<RunEntity[]> {
  return dataSource.getRepository(RunEntity).find({ where: taskId === undefined ? {} : { taskId }, order: { scheduledAt: 'ASC', id: 'ASC' } });
}

export async function taskRow(dataSource: DataSource, id: number): Promise<TaskEntity> {
  return dataSource.getRepository(TaskEntity).findOneByOrFail({ id });
}

/** A run row as a console's wake-up carries it (namedRunColumns), due at T0, of a task deleted since (`t_id` null): enough to parse. */
export function carriedRunRow(id: number, tenantId = 'acme'): NamedRunColumns {
  return {
    id, tenant_id: tenantId, task_id: 1, engine_group: 'default', cause: 'MANUAL', attempt: 1, priority: 0, params: '{"n":1}', scheduled_at: T0, due_at: T0,
    instant_at: null, late_from_at: null, flow_id: null, executor_id: null, parent_results: null, flow_params: null, parent_run_id: null,
    shard_index: null, shard_total: null, pinned_executor_id: null, trace_parent: null, run_key: null, t_id: null,
  };
}
