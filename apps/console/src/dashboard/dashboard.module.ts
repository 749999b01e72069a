import { Module } from '@nestjs/common';
import { LoadModule } from '../load/load.module';
import { StatsModule } from '../stats/stats.module';
import { DashboardController, OperatorDashboardController, OperatorDashboardsController } from './dashboard.controller';
import { DashboardService } from './dashboard.service';

/** A tenant's home dashboard (issue 24): GET /api/dashboard; an operator's GET /api/operator/tenants/{id}/dashboard, and every tenant's, a page at a time (GET /api/operator/dashboards). */
@Module({ imports: [StatsModule, LoadModule], controllers: [DashboardController, OperatorDashboardController, OperatorDashboardsController], providers: [DashboardService] })
export class DashboardModule {}
