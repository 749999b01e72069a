import { stableAlarmId } from '@baton/messaging';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ackAlarm, AlarmEntity, alarmsPublishedSinceAcrossTenants, findAlarm, findAlarmId, findAlarmsByStableId, inTransaction, listAlarms, type AlarmKey } from '@baton/persistence';
import { notFound } from '../common/api-error';
import { CLOCK, Clock } from '../common/clock';
import { auditChange } from '../audit';
import type { Page } from '../common/cursor';
import { keysetPage } from '../common/query';
import type { AlarmQuery, AlarmView } from './dto/alarm.dto';

export function alarmView(row: AlarmEntity): AlarmView {
  return {
    id: row.id,
    uid: stableAlarmId(row),
    type: row.type,
    severity: row.severity,
    taskId: row.taskId,
    runId: row.runId,
    executorId: row.executorId,
    message: row.message,
    data: row.data,
    count: row.count,
    raisedAt: row.raisedAt,
    ackedAt: row.ackedAt,
    ackedBy: row.ackedBy,
  };
}

@Injectable()
export class AlarmsService {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  list(tenantId: string, query: AlarmQuery): Promise<Page<AlarmView>> {
    const { cursor, limit, ...filter } = query;
    return keysetPage((page) => listAlarms(this.dataSource.manager, tenantId, filter, page), { timeOf: (r) => r.raisedAt, idOf: (r) => r.id, cursor, limit }, (rows) => rows.map(alarmView));
  }

  async get(tenantId: string, id: number): Promise<AlarmView> {
    const row = await findAlarm(this.dataSource.manager, tenantId, id);
    if (!row) throw notFound('Alarm', id);
    return alarmView(row);
  }

  /** The row id of the tenant's alarm with this stable id (`uid`, or `row-<id>`). */
  async idOfStableId(tenantId: string, stable: string): Promise<number> {
    const legacy = /^row-(\d+)$/.exec(stable);
    const id = await findAlarmId(this.dataSource.manager, tenantId, legacy ? { id: Number(legacy[1]) } : { uid: stable });
    if (id === null) throw notFound('Alarm', stable);
    return id;
  }

  /** What the alarm gateway may have missed while its subscription was down (alarmsPublishedSinceAcrossTenants). */
  publishedSince(since: number, limit: number): Promise<AlarmEntity[]> {
    return alarmsPublishedSinceAcrossTenants(this.dataSource.manager, since, limit);
  }

  /** The stored alarms these (tenant, stable id) keys name, each of its own tenant only (findAlarmsByStableId). */
  findByStableIds(keys: readonly AlarmKey[]): Promise<AlarmEntity[]> {
    return findAlarmsByStableId(this.dataSource.manager, keys);
  }

  /** Acknowledges an alarm; acknowledging it again keeps the first acknowledgement. */
  async ack(tenantId: string, id: number, username: string): Promise<AlarmView> {
    await inTransaction(this.dataSource, async (em) => {
      const row = await findAlarm(em, tenantId, id);
      if (!row) throw notFound('Alarm', id);
      await ackAlarm(em, tenantId, id, { now: this.clock.now(), by: username });
      await auditChange(em, { tenantId, objectType: 'alarm', objectId: id, before: { ackedAt: row.ackedAt, ackedBy: row.ackedBy }, after: { acked: true } });
    });
    return this.get(tenantId, id);
  }
}
