import { Module } from '@nestjs/common';
import { AuditController, OperatorAuditController } from './audit.controller';
import { AuditService } from './audit.service';

/** The audit log's routes (each console request's audit scope is auditScopes, put in place by configureConsoleApp). */
@Module({
  controllers: [AuditController, OperatorAuditController],
  providers: [AuditService],
})
export class AuditModule {}
