import { Get, HttpStatus, Inject, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiServiceUnavailableResponse } from '@nestjs/swagger';
import type { HttpResponse as Response } from '../common/http';
import { DataSource } from 'typeorm';
import { pingDatabase } from '@baton/persistence';
import { ConsoleController } from '../common/access';
import { CLOCK, Clock } from '../common/clock';

export class HealthView {
  @ApiProperty({ enum: ['ok', 'degraded'] }) status!: 'ok' | 'degraded';
  @ApiProperty({ enum: ['up', 'down'] }) db!: 'up' | 'down';
  @ApiProperty({ description: 'Server time, epoch ms' }) time!: number;
}

@ConsoleController('health', { tag: 'health', access: 'public' })
export class HealthController {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Liveness and database check (no authentication)' })
  @ApiOkResponse({ type: HealthView })
  @ApiServiceUnavailableResponse({ type: HealthView })
  async health(@Res({ passthrough: true }) res: Response): Promise<HealthView> {
    let db: 'up' | 'down' = 'down';
    try {
      if (this.dataSource.isInitialized) {
        await pingDatabase(this.dataSource.manager);
        db = 'up';
      }
    } catch {
      db = 'down';
    }
    if (db === 'down') res.status(HttpStatus.SERVICE_UNAVAILABLE);
    return { status: db === 'up' ? 'ok' : 'degraded', db, time: this.clock.now() };
  }
}
