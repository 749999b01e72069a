import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { backlogAlarmStep, LOAD_COUNT_CAP, type LoadCount } from '@baton/domain';
import { clearBacklogLate, countTenantRuns, inTransaction, markBacklogLate, sumExecutorCapacity, type LoadTenantRow } from '@baton/persistence';
import { Alarms } from '../alarms/alarms';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';

/**
 * A new BACKLOG_LATE episode of a tenant within this long of its unacknowledged one is counted
 * into it (the pop-up shows the count) rather than popped up again: a backlog that keeps
 * catching up and falling behind makes one alarm per 5 minutes.
 */
export const BACKLOG_ALARM_SILENCE_MS = 5 * 60_000;

/**
 * BACKLOG_LATE: a tenant's oldest due run has waited longer than its threshold (tenants.
 * backlog_alarm_ms, else BATON_BACKLOG_ALARM_MS; 0: never). Raised once per episode
 * (backlogAlarmStep) by one engine of the cluster: the engine whose guarded update sets
 * tenants.backlog_late_since writes the alarm in that transaction (markBacklogLate), as the
 * watchdog's START_LATE does with runs.late_alarmed_at. Fed by TenantLoadSampler, which has just
 * read every tenant's oldest due run.
 */
@Injectable()
export class BacklogAlarm {
  private readonly logger = new Logger('BacklogAlarm');

  constructor(
    private readonly dataSource: DataSource,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    private readonly alarms: Alarms,
  ) {}

  /** Checks these tenants; returns how many alarms this engine raised (or counted into one). */
  async check(tenants: readonly LoadTenantRow[], oldestDue: ReadonlyMap<string, number>, now: number): Promise<number> {
    let raised = 0;
    for (const tenant of tenants) {
      const thresholdMs = tenant.backlogAlarmMs ?? this.config.backlogAlarmMs;
      const oldestDueAt = oldestDue.get(tenant.id) ?? null;
      const step = backlogAlarmStep({ oldestDueAt, thresholdMs, lateSince: tenant.backlogLateSince, now });
      try {
        if (step === 'CLEAR') await clearBacklogLate(this.dataSource.manager, tenant.id);
        if (step === 'RAISE' && oldestDueAt !== null && (await this.raise(tenant, oldestDueAt, thresholdMs, now))) raised++;
      } catch (err) {
        this.logger.error(`backlog check failed: ${(err as Error).message}`, { tenantId: tenant.id });
      }
    }
    return raised;
  }

  private async raise(tenant: LoadTenantRow, oldestDueAt: number, thresholdMs: number, now: number): Promise<boolean> {
    const tenantId = tenant.id;
    // Read before the transaction: the counts only colour the message, the election is the update.
    const counts = await countTenantRuns(this.dataSource.manager, { tenantId, engineGroup: tenant.engineGroup, now, cap: LOAD_COUNT_CAP });
    const executors = (await sumExecutorCapacity(this.dataSource.manager, { tenantId })).get(tenantId) ?? { up: 0, capacity: 0, inFlight: 0 };
    const ageMs = now - oldestDueAt;
    return inTransaction(this.dataSource, async (em) => {
      if (!(await markBacklogLate(em, tenantId, now))) return false;
      await this.alarms.raise(em, {
        tenantId,
        type: 'BACKLOG_LATE',
        message:
          `Tenant ${tenantId}: its oldest due run has waited ${seconds(ageMs)} (threshold ${seconds(thresholdMs)}); ` +
          `${shown(counts.due)} due, ${shown(counts.held)} held by engines, ${shown(counts.inFlight)} at executors, ${shown(counts.sentAhead)} sent ahead waiting for their instant ` +
          `(${executors.up} UP executor(s), capacity ${executors.capacity})`,
        data: {
          oldestDueAt,
          ageMs,
          thresholdMs,
          due: counts.due.count,
          dueCapped: counts.due.capped,
          held: counts.held.count,
          inFlight: counts.inFlight.count,
          sentAhead: counts.sentAhead.count,
          executors: { up: executors.up, capacity: executors.capacity, inFlight: executors.inFlight },
        },
        now,
        silenceMs: BACKLOG_ALARM_SILENCE_MS,
      });
      return true;
    });
  }
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

function shown(count: LoadCount): string {
  return `${count.count.toLocaleString('en-US')}${count.capped ? '+' : ''}`;
}
