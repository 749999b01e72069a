import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { listAuditRecords, type AuditFilter, type AuditRow } from '@baton/persistence';
import { badRequest } from '../common/api-error';
import { decodeCursor, DEFAULT_PAGE_SIZE, encodeCursor, MAX_PAGE_SIZE, type Page } from '../common/cursor';
import type { AuditQuery, AuditRecordView } from './dto/audit.dto';

function recordView(row: AuditRow): AuditRecordView {
  return {
    id: row.id,
    at: row.at,
    tenantId: row.tenantId,
    actor: { kind: row.actorKind, name: row.actorName, userId: row.actorUserId, apiKeyId: row.actorApiKeyId, address: row.sourceAddress },
    action: row.action,
    objectType: row.objectType,
    objectId: row.objectId,
    before: row.before,
    after: row.after,
  };
}

/** Reads the audit log (written by recordAudit/auditChange): a tenant admin its tenant's, the operator every tenant's. */
@Injectable()
export class AuditService {
  constructor(private readonly dataSource: DataSource) {}

  /** A page, newest first. `tenantId` undefined: every tenant's (operator). */
  async list(tenantId: string | undefined, query: AuditQuery): Promise<Page<AuditRecordView>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const rows = await listAuditRecords(this.dataSource.manager, { ...filterOf(tenantId, query), limit: limit + 1 });
    const more = rows.length > limit;
    const page = more ? rows.slice(0, limit) : rows;
    return { items: page.map(recordView), nextCursor: more ? encodeCursor(page[page.length - 1].at, page[page.length - 1].id) : null };
  }

  /**
   * Every matching record, newest first, one JSON object a line; read a page at a time, so an
   * export of any size holds one page in memory. The filter is checked now, before the answer
   * starts (a 400 cannot follow a 200 that has begun).
   */
  exportLines(tenantId: string | undefined, query: AuditQuery): AsyncGenerator<string> {
    return this.lines({ ...filterOf(tenantId, query), after: undefined });
  }

  private async *lines(filter: Omit<AuditFilter, 'limit'>): AsyncGenerator<string> {
    for (;;) {
      const rows = await listAuditRecords(this.dataSource.manager, { ...filter, limit: MAX_PAGE_SIZE });
      for (const row of rows) yield `${JSON.stringify(recordView(row))}\n`;
      if (rows.length < MAX_PAGE_SIZE) return;
      filter.after = { at: rows[rows.length - 1].at, id: rows[rows.length - 1].id };
    }
  }
}

function cursorOf(cursor: string): { at: number; id: number } {
  const { time, id } = decodeCursor(cursor);
  return { at: time, id };
}

function filterOf(tenantId: string | undefined, query: AuditQuery): Omit<AuditFilter, 'limit'> {
  if (query.objectId !== undefined && query.objectType === undefined) throw badRequest([{ field: 'objectId', reason: 'needs objectType' }]);
  if (query.from !== undefined && query.to !== undefined && query.from >= query.to) throw badRequest([{ field: 'to', reason: 'must be after from' }]);
  return {
    tenantId,
    actorName: query.actor,
    action: query.action,
    objectType: query.objectType,
    objectId: query.objectId,
    from: query.from,
    to: query.to,
    after: query.cursor === undefined ? undefined : cursorOf(query.cursor),
  };
}
