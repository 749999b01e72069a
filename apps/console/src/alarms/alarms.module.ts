import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { AlarmGateway } from './alarm-gateway';
import { AlarmsController } from './alarms.controller';
import { AlarmsService } from './alarms.service';

/** Alarm history and acknowledgement (REST), and the live alarm gateway (alarm bus → socket.io). */
@Module({ imports: [AuthModule], controllers: [AlarmsController], providers: [AlarmsService, AlarmGateway], exports: [AlarmsService, AlarmGateway] })
export class AlarmsModule {}
