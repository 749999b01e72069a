import { Get, HttpStatus, Inject, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiServiceUnavailableResponse } from '@nestjs/swagger';
import type { HttpResponse as Response } from '../common/http';
import { DataSource } from 'typeorm';
import { offsetOf } from '@baton/domain';
import { readDatabaseTime } from '@baton/persistence';
import { ConsoleController } from '../common/access';
import { CLOCK, Clock } from '../common/clock';

export class HealthView {
  @ApiProperty({ enum: ['ok', 'degraded'] }) status!: 'ok' | 'degraded';
  @ApiProperty({ enum: ['up', 'down'] }) db!: 'up' | 'down';
  @ApiProperty({ description: 'Server time, epoch ms' }) time!: number;
  @ApiProperty({
    type: Number,
    nullable: true,
    description:
      "The database's clock minus this console's (ms), measured by this request (half the round trip corrected; null when the database is down). The console stamps manual runs with its own time: keep it within BATON_CLOCK_SKEW_ALARM_MS (docs/OPERATIONS.md, Clocks).",
  })
  clockOffsetMs!: number | null;
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
    let clockOffsetMs: number | null = null;
    try {
      if (this.dataSource.isInitialized) {
        // The database's time is the ping: one SELECT says it is up and how far this clock is from it.
        const sentAt = this.clock.now();
        const referenceAt = await readDatabaseTime(this.dataSource.manager);
        clockOffsetMs = offsetOf({ sentAt, referenceAt, receivedAt: this.clock.now() }).offsetMs;
        db = 'up';
      }
    } catch {
      db = 'down';
    }
    if (db === 'down') res.status(HttpStatus.SERVICE_UNAVAILABLE);
    return { status: db === 'up' ? 'ok' : 'degraded', db, time: this.clock.now(), clockOffsetMs };
  }
}
