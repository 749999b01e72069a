import { Inject, Injectable } from '@nestjs/common';
import { DataSource, IsNull } from 'typeorm';
import { AlarmEntity, inTransaction } from '@baton/persistence';
import { notFound } from '../common/api-error';
import { CLOCK, Clock } from '../common/clock';
import type { Page } from '../common/cursor';
import { keysetPage } from '../common/query';
import type { AlarmQuery, AlarmView } from './dto/alarm.dto';

export function alarmView(row: AlarmEntity): AlarmView {
  return {
    id: row.id,
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

  /** Acknowledges an alarm; acknowledging it again keeps the first acknowledgement. */
  async ack(tenantId: string, id: number, username: string): Promise<AlarmView> {
    await inTransaction(this.dataSource, async (em) => {
      if (!(await em.existsBy(AlarmEntity, { id, tenantId }))) throw notFound('Alarm', id);
      await em.update(AlarmEntity, { id, tenantId, ackedAt: IsNull() }, { ackedAt: this.clock.now(), ackedBy: username.slice(0, 100) });
    });
    return this.get(tenantId, id);
  }
}
