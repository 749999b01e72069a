import { Module } from '@nestjs/common';
import { LoadModule } from '../load/load.module';
import { StatsModule } from '../stats/stats.module';
import { DashboardController, OperatorDashboardController } from './dashboard.controller';
import { DashboardService } from './dashboard.service';

/** A tenant's home dashboard (issue 24): GET /api/dashboard, and an operator's GET /api/operator/tenants/{id}/dashboard. */
@Module({ imports: [StatsModule, LoadModule], controllers: [DashboardController, OperatorDashboardController], providers: [DashboardService] })
export class DashboardModule {}
