import { Get, Header, Query, StreamableFile } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces } from '@nestjs/swagger';
import { Readable } from 'node:stream';
import { ConsoleController } from '../common/access';
import { TenantId } from '../common/principal';
import { AuditService } from './audit.service';
import { AuditPage, AuditQuery, OperatorAuditQuery } from './dto/audit.dto';

const JSON_LINES = 'application/x-ndjson';

/** A tenant admin reads its tenant's audit log (a viewer: 403). No route changes or deletes it. */
@ConsoleController('audit', { tag: 'audit', access: 'tenant-admin' })
export class AuditController {
  constructor(private readonly audit: AuditService) {}

  @Get()
  @ApiOperation({ summary: "The tenant's audit log, newest first: who changed what, when, from where, before and after (secrets redacted)" })
  @ApiOkResponse({ type: AuditPage })
  list(@TenantId() tenantId: string, @Query() query: AuditQuery): Promise<AuditPage> {
    return this.audit.list(tenantId, query);
  }

  @Get('export')
  @Header('Content-Disposition', 'attachment; filename="audit.jsonl"')
  @ApiOperation({ summary: 'The same records (same filters, cursor and limit ignored) as JSON lines, every match' })
  @ApiProduces(JSON_LINES)
  export(@TenantId() tenantId: string, @Query() query: AuditQuery): StreamableFile {
    return new StreamableFile(Readable.from(this.audit.exportLines(tenantId, query)), { type: JSON_LINES });
  }
}

/** The operator reads every tenant's audit log (and the operators' own changes: tenant null). */
@ConsoleController('operator/audit', { tag: 'operator', access: 'operator' })
export class OperatorAuditController {
  constructor(private readonly audit: AuditService) {}

  @Get()
  @ApiOperation({ summary: "Every tenant's audit log, or `tenantId`'s, newest first" })
  @ApiOkResponse({ type: AuditPage })
  list(@Query() query: OperatorAuditQuery): Promise<AuditPage> {
    return this.audit.list(query.tenantId, query);
  }

  @Get('export')
  @Header('Content-Disposition', 'attachment; filename="audit.jsonl"')
  @ApiOperation({ summary: 'The same records as JSON lines, every match' })
  @ApiProduces(JSON_LINES)
  export(@Query() query: OperatorAuditQuery): StreamableFile {
    return new StreamableFile(Readable.from(this.audit.exportLines(query.tenantId, query)), { type: JSON_LINES });
  }
}
