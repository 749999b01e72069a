import { Inject, Injectable } from '@nestjs/common';
import { DataSource, IsNull } from 'typeorm';
import type { JsonValue } from '@baton/domain';
import { buildAlarmMessage, type AlarmMessage } from '@baton/messaging';
import { AlarmEntity, inTransaction } from '@baton/persistence';
import { notFound } from '../common/api-error';
import { CLOCK, Clock } from '../common/clock';
import { auditChange } from '../audit';
import type { Page } from '../common/cursor';
import { keysetPage } from '../common/query';
import type { AlarmQuery, AlarmView } from './dto/alarm.dto';

export function alarmView(row: AlarmEntity): AlarmView {
  return {
    id: row.id,
    uid: stableId(row),
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

/** The alarm's stable id: its `id` on the alarm topic and in socket.io events. */
export function stableId(row: Pick<AlarmEntity, 'id' | 'uid'>): string {
  return row.uid ?? `row-${row.id}`;
}

/** The alarm as published on its topic (what the gateway pushes when it catches up from the database). */
export function alarmMessageOf(row: AlarmEntity): AlarmMessage {
  return buildAlarmMessage({
    id: stableId(row),
    tenantId: row.tenantId,
    type: row.type,
    severity: row.severity,
    taskId: row.taskId,
    runId: row.runId,
    executorId: row.executorId,
    message: row.message,
    data: (row.data ?? null) as JsonValue | null,
    count: row.count,
    raisedAt: row.raisedAt,
    source: 'engine',
  });
}

@Injectable()
export class AlarmsService {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  list(tenantId: string, query: AlarmQuery): Promise<Page<AlarmView>> {
    const qb = this.dataSource.getRepository(AlarmEntity).createQueryBuilder('a').where('a.tenantId = :tenantId', { tenantId });
    if (query.acked === true) qb.andWhere('a.ackedAt IS NOT NULL');
    if (query.acked === false) qb.andWhere('a.ackedAt IS NULL');
    if (query.type?.length) qb.andWhere('a.type IN (:...types)', { types: query.type });
    if (query.taskId !== undefined) qb.andWhere('a.taskId = :taskId', { taskId: query.taskId });
    if (query.from !== undefined) qb.andWhere('a.raisedAt >= :from', { from: query.from });
    if (query.to !== undefined) qb.andWhere('a.raisedAt < :to', { to: query.to });
    return keysetPage(
      qb,
      { alias: 'a', timeProperty: 'raisedAt', timeOf: (r) => r.raisedAt, idOf: (r) => r.id, cursor: query.cursor, limit: query.limit },
      (rows) => rows.map(alarmView),
    );
  }

  async get(tenantId: string, id: number): Promise<AlarmView> {
    const row = await this.dataSource.getRepository(AlarmEntity).findOneBy({ id, tenantId });
    if (!row) throw notFound('Alarm', id);
    return alarmView(row);
  }

  /** The row id of the tenant's alarm with this stable id (`uid`, or `row-<id>`). */
  async idOfStableId(tenantId: string, stable: string): Promise<number> {
    const legacy = /^row-(\d+)$/.exec(stable);
    const row = legacy
      ? await this.dataSource.getRepository(AlarmEntity).findOne({ where: { id: Number(legacy[1]), tenantId }, select: { id: true } })
      : await this.dataSource.getRepository(AlarmEntity).findOne({ where: { uid: stable, tenantId }, select: { id: true } });
    if (!row) throw notFound('Alarm', stable);
    return row.id;
  }

  /**
   * Alarms of every tenant published at or after `since`, or not published yet, oldest first (at
   * most `limit`): what the alarm gateway may have missed while its subscription was down
   * (ix_alarms_outbox: published_at IS NULL, and published_at >= since).
   */
  publishedSince(since: number, limit: number): Promise<AlarmEntity[]> {
    return this.dataSource
      .getRepository(AlarmEntity)
      .createQueryBuilder('a')
      .where('(a.publishedAt >= :since OR a.publishedAt IS NULL)', { since })
      .orderBy('a.id', 'ASC')
      .limit(limit)
      .getMany();
  }

  /** Acknowledges an alarm; acknowledging it again keeps the first acknowledgement. */
  async ack(tenantId: string, id: number, username: string): Promise<AlarmView> {
    await inTransaction(this.dataSource, async (em) => {
      const row = await em.findOneBy(AlarmEntity, { id, tenantId });
      if (!row) throw notFound('Alarm', id);
      await em.update(AlarmEntity, { id, tenantId, ackedAt: IsNull() }, { ackedAt: this.clock.now(), ackedBy: username.slice(0, 100) });
      await auditChange(em, { tenantId, objectType: 'alarm', objectId: id, before: { ackedAt: row.ackedAt, ackedBy: row.ackedBy }, after: { acked: true } });
    });
    return this.get(tenantId, id);
  }
}
