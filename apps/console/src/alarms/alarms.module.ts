import { Module } from '@nestjs/common';
import { RealtimeModule } from '../realtime/realtime.module';
import { AlarmGateway } from './alarm-gateway';
import { AlarmsController } from './alarms.controller';
import { AlarmsService } from './alarms.service';

/** Alarm history and acknowledgement (REST), and live alarms (alarm bus → the realtime gateway). */
@Module({ imports: [RealtimeModule], controllers: [AlarmsController], providers: [AlarmsService, AlarmGateway], exports: [AlarmsService, AlarmGateway] })
export class AlarmsModule {}
