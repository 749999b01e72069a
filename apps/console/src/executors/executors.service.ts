import { Injectable } from '@nestjs/common';
import { DataSource, FindOptionsWhere } from 'typeorm';
import { ExecutorEntity } from '@baton/persistence';
import { notFound } from '../common/api-error';
import type { ExecutorQuery, ExecutorView } from './dto/executor.dto';

function executorView(row: ExecutorEntity): ExecutorView {
  return {
    id: row.id,
    app: row.app,
    url: row.url,
    capacity: row.capacity,
    inFlight: row.inFlight,
    state: row.state,
    registeredAt: row.registeredAt,
    heartbeatAt: row.heartbeatAt,
  };
}

@Injectable()
export class ExecutorsService {
  constructor(private readonly dataSource: DataSource) {}

  async list(tenantId: string, query: ExecutorQuery): Promise<ExecutorView[]> {
    const where: FindOptionsWhere<ExecutorEntity> = { tenantId };
    if (query.app !== undefined) where.app = query.app;
    if (query.state !== undefined) where.state = query.state;
    const rows = await this.dataSource.getRepository(ExecutorEntity).find({ where, order: { app: 'ASC', id: 'ASC' } });
    return rows.map(executorView);
  }

  async get(tenantId: string, id: number): Promise<ExecutorView> {
    const row = await this.dataSource.getRepository(ExecutorEntity).findOneBy({ id, tenantId });
    if (!row) throw notFound('Executor', id);
    return executorView(row);
  }
}
