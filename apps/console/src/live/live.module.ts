import { Injectable, Module, OnApplicationBootstrap } from '@nestjs/common';
import { RealtimeGateway } from '../realtime/realtime.gateway';
import { RealtimeModule } from '../realtime/realtime.module';
import { RunEventsService, type RunEventSink } from './run-events';
import { RUN_LOGS_UNWATCH, RUN_LOGS_WATCH, RunLogTail } from './run-log-tail';

/**
 * Run events ride on the console's realtime gateway (authenticated at the handshake, one room per
 * tenant): the same connection carries `alarm`, `run` and `run:logs` events.
 */
@Injectable()
export class LiveRunsBridge implements OnApplicationBootstrap {
  constructor(
    private readonly realtime: RealtimeGateway,
    private readonly runEvents: RunEventsService,
    private readonly logTail: RunLogTail,
  ) {}

  onApplicationBootstrap(): void {
    const realtime = this.realtime;
    const sink: RunEventSink = {
      tenantsListening: () => realtime.tenantsListening(),
      emit: (tenantId, event, payload) => realtime.emitToTenant(tenantId, event, payload),
    };
    this.runEvents.start(sink);
    this.logTail.start();
    // The credential is checked again for each watch (by the gateway): a revoked key or ended session gets nothing.
    realtime.onClientEvent(RUN_LOGS_WATCH, (socket, principal, payload) => this.logTail.watch(socket, principal.tenantId!, payload));
    realtime.onConnection((socket) => socket.on(RUN_LOGS_UNWATCH, (payload: unknown) => this.logTail.unwatch(socket, payload)));
  }
}

/** Live run state and run log tails for the web console (`run` and `run:logs` events over the realtime gateway). */
@Module({ imports: [RealtimeModule], providers: [RunEventsService, RunLogTail, LiveRunsBridge], exports: [RunEventsService, RunLogTail] })
export class ConsoleLiveModule {}
