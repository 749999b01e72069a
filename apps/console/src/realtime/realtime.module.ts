import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { RealtimeGateway } from './realtime.gateway';

/** The console's one socket.io gateway (authentication, tenant rooms, emit to a tenant), used by alarms and live runs. */
@Module({ imports: [AuthModule], providers: [RealtimeGateway], exports: [RealtimeGateway] })
export class RealtimeModule {}
