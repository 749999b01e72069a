import { Module } from '@nestjs/common';
import { LoadController, OperatorLoadController } from './load.controller';
import { LoadService } from './load.service';

/** Tenants' load (issue 20 item 4): GET /api/load (a tenant's own), GET /api/operator/load (every tenant's). */
@Module({ controllers: [LoadController, OperatorLoadController], providers: [LoadService], exports: [LoadService] })
export class LoadModule {}
