import { Injectable, Module, OnApplicationBootstrap } from '@nestjs/common';
import { AlarmGateway, tenantRoom } from '../alarms/alarm-gateway';
import { AlarmsModule } from '../alarms/alarms.module';
import { RunEventsService, type RunEventSink } from './run-events';
import { RUN_LOGS_UNWATCH, RUN_LOGS_WATCH, RunLogTail, type WatchReply } from './run-log-tail';

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
    private readonly logTail: RunLogTail,
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
    this.logTail.start();
    gateway.addSocketListener((socket) => {
      socket.on(RUN_LOGS_WATCH, (payload: unknown, callback?: unknown) => {
        const reply = typeof callback === 'function' ? (callback as (r: WatchReply) => void) : () => undefined;
        // The credential is checked again for each watch: a revoked key or ended session gets nothing.
        void gateway
          .principalNow(socket)
          .then((principal) => (principal?.tenantId ? this.logTail.watch(socket, principal.tenantId, payload) : { ok: false as const, statusCode: 401, message: 'Session ended or API key revoked' }))
          .then(reply, () => reply({ ok: false, statusCode: 500, message: 'Internal error' }));
      });
      socket.on(RUN_LOGS_UNWATCH, (payload: unknown) => this.logTail.unwatch(socket, payload));
    });
  }
}

/** Live run state and run log tails for the web console (`run` and `run:logs` events over the alarm gateway's socket.io). */
@Module({ imports: [AlarmsModule], providers: [RunEventsService, RunLogTail, LiveRunsBridge], exports: [RunEventsService, RunLogTail] })
export class ConsoleLiveModule {}
