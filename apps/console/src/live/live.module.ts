import { Injectable, Module, OnApplicationBootstrap } from '@nestjs/common';
import { AlarmGateway, tenantRoom } from '../alarms/alarm-gateway';
import { AlarmsModule } from '../alarms/alarms.module';
import { RunEventsService, type RunEventSink } from './run-events';

const ROOM_PREFIX = tenantRoom('');

/**
 * Run events ride on the alarm gateway's socket.io server and tenant rooms (authenticated at the
 * handshake, one room per tenant): the same connection carries `alarm` and `run` events.
 */
@Injectable()
export class LiveRunsBridge implements OnApplicationBootstrap {
  constructor(
    private readonly gateway: AlarmGateway,
    private readonly runEvents: RunEventsService,
  ) {}

  onApplicationBootstrap(): void {
    const gateway = this.gateway;
    const sink: RunEventSink = {
      *tenantsListening() {
        const rooms = gateway.server?.of('/').adapter.rooms;
        if (!rooms) return;
        for (const [room, sockets] of rooms) if (room.startsWith(ROOM_PREFIX) && sockets.size > 0) yield room.slice(ROOM_PREFIX.length);
      },
      emit(tenantId, event, payload) {
        gateway.server?.to(tenantRoom(tenantId)).emit(event, payload);
      },
    };
    this.runEvents.start(sink);
  }
}

/** Live run state for the web console (`run` events over the alarm gateway's socket.io). */
@Module({ imports: [AlarmsModule], providers: [RunEventsService, LiveRunsBridge], exports: [RunEventsService] })
export class ConsoleLiveModule {}
