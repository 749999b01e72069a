import type { Server as HttpServer } from 'node:http';
import { BeforeApplicationShutdown, HttpException, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { Server, type Socket } from 'socket.io';
import {
  ALARM_ACK_SCHEMA,
  checkAlarmAck,
  checkAlarmMessage,
  RecentIds,
  type AlarmBus,
  type AlarmMessage,
  type ReceivedAck,
  type ReceivedAlarm,
} from '@baton/messaging';
import { isAllowed } from '../auth/auth.guard';
import { AuthService } from '../auth/auth.service';
import { requestCredential, socketOriginAllowed } from '../auth/session-cookie';
import { CONSOLE_OPTIONS, type ResolvedConsoleOptions } from '../common/options';
import type { Principal } from '../common/principal';
import { alarmMessageOf, AlarmsService } from './alarms.service';
import { CONSOLE_ALARM_BUS } from './console-alarm-bus';

/** socket.io room of a tenant's sockets. */
export function tenantRoom(tenantId: string): string {
  return `tenant:${tenantId}`;
}

/** The `alarm:acked` event: an alarm of the tenant was acknowledged (by another socket, maybe on another console). */
export interface AlarmAckedEvent {
  /** The alarm's stable id (the `id` of its `alarm` event). */
  id: string;
  /** Its row id (REST). */
  alarmId: number;
  ackedAt: number | null;
  ackedBy: string | null;
}

/** What an `alarm:ack` is answered with (socket.io acknowledgement callback). */
export type AlarmAckReply = { ok: true; alarm: AlarmAckedEvent } | { ok: false; statusCode: number; message: string };

/**
 * How often every open socket's credential is checked again, so an idle socket whose session
 * ended (logout, user disabled, password reset) or whose API key was revoked is disconnected.
 */
export const SOCKET_RECHECK_MS = 5000;

/** Most alarms re-read from the database after the subscription came back. */
const CATCH_UP_LIMIT = 10_000;

/**
 * The console's alarm gateway: alarm bus (ActiveMQ topics, or in-process) → socket.io.
 *
 * - socket.io server on the console's HTTP server (path `/socket.io`). The handshake is
 *   authenticated with the console's own AuthService: the web console's session cookie (sent by
 *   the browser; refused from a page of another origin), or for API clients `auth: { token }`
 *   (a session token from POST /api/auth/login) or `auth: { apiKey }` (or the `Authorization` /
 *   `X-API-Key` headers). Tenant principals only (operators have no tenant's alarms). Each socket joins exactly one room:
 *   its own tenant's.
 * - Subscribes to every tenant's alarm topic (`<prefix>>`); an alarm is accepted from topic T only
 *   if it is a valid `baton.alarm/1` message whose tenantId is T (an executor of one tenant
 *   publishing to another tenant's topic, or with another tenant's id, is dropped), and is emitted
 *   as `alarm` to T's room only — once: repeats (same id) are dropped.
 * - After the subscription comes back (broker restart, reconnection), re-reads from the database
 *   what was published while it was down (and what is still waiting in the outbox), emits it in
 *   id order, then what arrived meanwhile: a broker outage loses nothing for the browsers of this
 *   console, and duplicates are dropped by id.
 * - `alarm:ack` `{ id }` (the alarm's stable id, or its REST `alarmId`) from a TENANT_ADMIN:
 *   AlarmsService.ack — the method behind POST /api/alarms/:id/ack — then `alarm:acked` to the
 *   tenant's other sockets here, and on the ack topic to the other console processes, which emit
 *   it to theirs.
 * - The handshake's credential is checked again before every event a client sends (one indexed
 *   read) and every SOCKET_RECHECK_MS (5 s) for every open socket: a socket whose session ended
 *   or whose API key was revoked gets `{ ok: false, statusCode: 401 }` for its event and is
 *   disconnected.
 *
 * Several console processes: each subscribes and serves its own sockets, so a browser gets every
 * alarm of its tenant once, whichever console it is connected to.
 */
@Injectable()
export class AlarmGateway implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('AlarmGateway');
  private io: Server | null = null;
  private readonly delivered = new RecentIds(100_000);
  private unsubscribe: (() => void) | null = null;
  /** Wall-clock time from which alarms may have been missed (null: subscribed, nothing missed). */
  private lostSince: number | null = null;
  private catchingUp = false;
  /**
   * From a loss of the subscription until the catch-up after it is done, live alarms wait here:
   * one that arrives before the catch-up (a broker may deliver as soon as it takes the SUBSCRIBE)
   * must not overtake older ones the catch-up is about to read from the database.
   */
  private holding = true;
  private catchUpAgain = false;
  private held: AlarmMessage[] = [];
  private lastDropLogAt = 0;
  private recheckTimer: NodeJS.Timeout | null = null;
  private sweeping = false;
  private readonly socketListeners = new Set<(socket: Socket, principal: Principal) => void>();

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly auth: AuthService,
    private readonly alarms: AlarmsService,
    @Inject(CONSOLE_ALARM_BUS) private readonly bus: AlarmBus,
    @Inject(CONSOLE_OPTIONS) private readonly options: ResolvedConsoleOptions,
  ) {}

  /** The socket.io server (null when the app has no HTTP server). */
  get server(): Server | null {
    return this.io;
  }

  onApplicationBootstrap(): void {
    const httpServer = this.adapterHost.httpAdapter?.getHttpServer?.() as HttpServer | undefined;
    if (!httpServer) {
      this.logger.warn('no HTTP server: the socket.io alarm gateway is off');
      return;
    }
    const cors = this.options.socketCorsOrigins.length ? { origin: this.options.socketCorsOrigins, credentials: true } : undefined;
    const io = new Server(httpServer, { path: this.options.socketPath, serveClient: false, ...(cors ? { cors } : {}) });
    io.use((socket, next) => {
      this.authenticate(socket).then(
        () => next(),
        (err: Error) => next(err),
      );
    });
    io.on('connection', (socket) => this.onConnection(socket));
    this.io = io;
    this.recheckTimer = setInterval(() => void this.recheckAll(), SOCKET_RECHECK_MS);
    this.recheckTimer.unref();
    // Until the first subscription is confirmed, anything published may be missed: catch up from now.
    this.lostSince = Date.now();
    this.unsubscribe = this.bus.subscribe({
      alarm: (m) => this.onAlarm(m),
      ack: (m) => this.onRemoteAck(m),
      subscribed: () => void this.catchUp(),
      lost: () => {
        this.lostSince ??= Date.now();
        this.holding = true;
      },
    });
  }

  beforeApplicationShutdown(): void {
    if (this.recheckTimer) clearInterval(this.recheckTimer);
    this.recheckTimer = null;
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.io) {
      // Close the sockets now: open websockets would keep the HTTP server's close waiting.
      this.io.disconnectSockets(true);
      this.io.engine.close();
      this.io = null;
    }
  }

  // ---- sockets ------------------------------------------------------------------------------

  private async authenticate(socket: Socket): Promise<void> {
    const headers = credentialHeaders(socket, this.options.socketCorsOrigins);
    socket.data.principal = await this.principalOf(headers);
    socket.data.credential = headers;
  }

  /** The tenant principal behind a handshake's credential; a connect error when there is none (any more). */
  private async principalOf(headers: Record<string, string | string[] | undefined>): Promise<Principal> {
    let principal: Principal | null;
    try {
      principal = await this.auth.authenticate(headers);
    } catch (err) {
      throw connectError(err instanceof HttpException ? err.getStatus() : 401, (err as Error).message);
    }
    if (!principal) throw connectError(401, 'Authentication required: connect with the session cookie, auth { token } (POST /api/auth/login) or auth { apiKey }');
    if (!principal.tenantId || !isAllowed(principal, 'tenant', 'GET')) throw connectError(403, 'The alarm stream is for tenant users');
    return principal;
  }

  /**
   * Checks the socket's credential again: its current principal, or null when it is gone (session
   * ended, API key revoked, user disabled): the caller disconnects the socket. A database error
   * is thrown (the socket stays; it is checked again on its next event or sweep).
   */
  private async recheck(socket: Socket): Promise<Principal | null> {
    try {
      const principal = await this.principalOf(socket.data.credential as Record<string, string | string[] | undefined>);
      if (principal.tenantId !== (socket.data.principal as Principal).tenantId) throw connectError(403, 'The credential now belongs to another tenant');
      socket.data.principal = principal;
      return principal;
    } catch (err) {
      if (!(err as { data?: unknown }).data) throw err;
      return null;
    }
  }

  /** One sweep over the open sockets, one at a time; a sweep still running (slow database) skips the next. */
  private async recheckAll(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      for (const socket of [...(this.io?.of('/').sockets.values() ?? [])]) {
        if (!socket.connected) continue;
        const principal = await this.recheck(socket).catch((err: Error) => this.logger.warn(`socket credential not re-checked: ${err.message}`));
        if (principal === null) socket.disconnect(true);
      }
    } finally {
      this.sweeping = false;
    }
  }

  /**
   * Lets another feature serve its own events on the same authenticated connections (the live
   * log tail): `listener` gets every socket as it connects, with its principal.
   */
  addSocketListener(listener: (socket: Socket, principal: Principal) => void): void {
    this.socketListeners.add(listener);
  }

  /** The socket's credential checked again (null: its session ended or its key was revoked). */
  principalNow(socket: Socket): Promise<Principal | null> {
    return this.recheck(socket);
  }

  private onConnection(socket: Socket): void {
    void socket.join(tenantRoom((socket.data.principal as Principal).tenantId!));
    for (const listener of this.socketListeners) listener(socket, socket.data.principal as Principal);
    socket.on('alarm:ack', (payload: unknown, callback?: unknown) => {
      const reply = typeof callback === 'function' ? (callback as (r: AlarmAckReply) => void) : () => undefined;
      void this.writeEvent(socket, reply, (principal) => this.onAck(socket, principal, payload));
    });
  }

  /** Runs a client's write event with the socket's credential checked again first. */
  private async writeEvent(socket: Socket, reply: (r: AlarmAckReply) => void, handle: (principal: Principal) => Promise<AlarmAckReply>): Promise<void> {
    let principal: Principal | null = null;
    try {
      principal = await this.recheck(socket);
      if (!principal) {
        reply({ ok: false, statusCode: 401, message: 'Session ended or API key revoked; connect again with a valid credential' });
        socket.disconnect(true); // after the reply: the client gets it before the disconnection
        return;
      }
      reply(await handle(principal));
    } catch (err) {
      this.logger.error(`socket event failed: ${(err as Error).message}`, { tenantId: principal?.tenantId }, (err as Error).stack);
      reply({ ok: false, statusCode: 500, message: 'Internal error' });
    }
  }

  private async onAck(socket: Socket, principal: Principal, payload: unknown): Promise<AlarmAckReply> {
    const tenantId = principal.tenantId!;
    // The REST rule for POST /api/alarms/:id/ack: a write, TENANT_ADMIN only.
    if (!isAllowed(principal, 'tenant', 'POST')) return { ok: false, statusCode: 403, message: 'TENANT_ADMIN role required' };
    const body = (typeof payload === 'object' && payload !== null ? payload : {}) as { id?: unknown; alarmId?: unknown };
    try {
      let alarmId: number;
      if (typeof body.alarmId === 'number' && Number.isSafeInteger(body.alarmId) && body.alarmId > 0) alarmId = body.alarmId;
      else if (typeof body.id === 'string' && body.id.length > 0 && body.id.length <= 64) alarmId = await this.alarms.idOfStableId(tenantId, body.id);
      else return { ok: false, statusCode: 400, message: 'alarm:ack needs { id: <the alarm event id> } or { alarmId: <REST id> }' };
      const view = await this.alarms.ack(tenantId, alarmId, principal.username);
      const event: AlarmAckedEvent = { id: view.uid, alarmId: view.id, ackedAt: view.ackedAt, ackedBy: view.ackedBy };
      socket.to(tenantRoom(tenantId)).emit('alarm:acked', event);
      this.bus
        .publishAck({ schema: ALARM_ACK_SCHEMA, ...event, ackedAt: view.ackedAt ?? 0, ackedBy: view.ackedBy ?? '', tenantId, origin: this.options.consoleId })
        .catch((err: Error) => this.logger.warn(`ack not broadcast to the other consoles: ${err.message}`, { tenantId, alarmId: view.id }));
      return { ok: true, alarm: event };
    } catch (err) {
      if (err instanceof HttpException) return { ok: false, statusCode: err.getStatus(), message: err.message };
      throw err;
    }
  }

  // ---- the bus ------------------------------------------------------------------------------

  private onAlarm(received: ReceivedAlarm): void {
    const checked = checkAlarmMessage(received.payload);
    if (!checked.ok) return this.dropped(`a message on the alarm topic of tenant ${received.topicTenantId}: ${checked.problem}`);
    const alarm = checked.value;
    if (alarm.tenantId !== received.topicTenantId) {
      return this.dropped(`alarm ${alarm.id} of tenant "${alarm.tenantId}" on the topic of tenant "${received.topicTenantId}"`);
    }
    if (this.holding) this.held.push(alarm);
    else this.emit(alarm);
  }

  private onRemoteAck(received: ReceivedAck): void {
    const checked = checkAlarmAck(received.payload);
    if (!checked.ok) return this.dropped(`a message on the ack topic of tenant ${received.topicTenantId}: ${checked.problem}`);
    const ack = checked.value;
    if (ack.tenantId !== received.topicTenantId) return this.dropped(`an ack of tenant "${ack.tenantId}" on the topic of tenant "${received.topicTenantId}"`);
    if (ack.origin === this.options.consoleId || !this.io) return; // ours: our sockets have it
    const event: AlarmAckedEvent = { id: ack.id, alarmId: ack.alarmId, ackedAt: ack.ackedAt, ackedBy: ack.ackedBy };
    this.io.to(tenantRoom(ack.tenantId)).emit('alarm:acked', event);
  }

  /**
   * Each alarm once per console process (and again for each new count of a collapsed repeat:
   * the pop-up updates its count), to its tenant's room only.
   */
  private emit(alarm: AlarmMessage): void {
    if (!this.delivered.add(`${alarm.id}#${alarm.count}`)) return;
    this.io?.to(tenantRoom(alarm.tenantId)).emit('alarm', alarm);
  }

  /**
   * The subscription is (again) active: emit what may have been missed while it was not — alarms
   * published since then (minus a margin for clock skew) or still in the outbox — oldest first,
   * then what arrived meanwhile. Repeats are dropped by id.
   */
  private async catchUp(): Promise<void> {
    if (this.catchingUp) {
      this.catchUpAgain = true; // (re)subscribed meanwhile: run again when this one is done
      return;
    }
    const since = this.lostSince;
    this.lostSince = null;
    this.catchingUp = true;
    try {
      if (since !== null) {
        const rows = await this.alarms.publishedSince(since - this.options.alarmCatchUpMarginMs, CATCH_UP_LIMIT);
        for (const row of rows) this.emit(alarmMessageOf(row));
      }
    } catch (err) {
      this.logger.error(`could not re-read the alarms missed while the subscription was down: ${(err as Error).message}`);
    } finally {
      this.catchingUp = false;
      if (this.catchUpAgain) {
        this.catchUpAgain = false;
        void this.catchUp();
      } else if (this.lostSince === null) {
        this.holding = false;
        const held = this.held;
        this.held = [];
        for (const alarm of held) this.emit(alarm);
      }
      // Else lost again meanwhile: keep holding; the next `subscribed` catches up from then.
    }
  }

  private dropped(what: string): void {
    const now = Date.now();
    if (now - this.lastDropLogAt < 10_000) return;
    this.lastDropLogAt = now;
    this.logger.warn(`dropped ${what}`);
  }
}

function connectError(statusCode: number, message: string): Error {
  const err = new Error(message) as Error & { data: { statusCode: number } };
  err.data = { statusCode };
  return err;
}

/**
 * The handshake's credential as request headers for AuthService: `auth { token | apiKey }` (API
 * clients), else the `Authorization` / `X-API-Key` headers, else the session cookie (the web
 * console) — only from the console's own origin or an allowed one (session-cookie.ts).
 */
function credentialHeaders(socket: Socket, allowedOrigins: readonly string[]): Record<string, string | string[] | undefined> {
  const auth = (socket.handshake.auth ?? {}) as { token?: unknown; apiKey?: unknown };
  if (typeof auth.token === 'string') return { authorization: `Bearer ${auth.token}` };
  if (typeof auth.apiKey === 'string') return { 'x-api-key': auth.apiKey };
  const credential = requestCredential(socket.handshake.headers);
  if (credential.cookieToken !== null && !socketOriginAllowed(socket.handshake.headers, allowedOrigins)) {
    throw connectError(403, `The session cookie is not accepted from origin ${JSON.stringify(socket.handshake.headers.origin)}`);
  }
  return credential.headers;
}
