import type { Server as HttpServer } from 'node:http';
import { BeforeApplicationShutdown, HttpException, Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { Server, type Socket } from 'socket.io';
import { redact } from '@baton/domain';
import { isAllowed } from '../auth/auth.guard';
import { AuthService } from '../auth/auth.service';
import { seesSecretValues } from '../auth/secret-values';
import { requestCredential, socketOriginAllowed } from '../auth/session-cookie';
import { CONSOLE_OPTIONS, type ResolvedConsoleOptions } from '../common/options';
import type { Principal } from '../common/principal';
import { SECURITY_HEADERS } from '../web/security-headers';

/** socket.io room of a tenant's sockets. */
export function tenantRoom(tenantId: string): string {
  return `${TENANT_ROOM_PREFIX}${tenantId}`;
}

const TENANT_ROOM_PREFIX = 'tenant:';

/**
 * How often every open socket's credential is checked again, so an idle socket whose session
 * ended (logout, user disabled, password reset) or whose API key was revoked is disconnected.
 */
export const SOCKET_RECHECK_MS = 5000;

/** What a client event is answered with when it is refused before its handler runs. */
export interface EventRefusal {
  ok: false;
  statusCode: number;
  message: string;
}

/** A client event's handler: runs with the socket's credential just checked again; its answer goes to the client's acknowledgement callback. */
export type ClientEventHandler<R> = (socket: Socket, principal: Principal, payload: unknown) => Promise<R>;

/**
 * The console's one realtime gateway: the socket.io server every live feature rides on (alarms,
 * run states, run log tails), so a browser tab has one authenticated connection.
 *
 * - socket.io on the console's HTTP server (path `/socket.io`). The handshake is authenticated
 *   with the console's own AuthService: the web console's session cookie (sent by the browser;
 *   refused from a page of another origin), or for API clients `auth: { token }` (a session token
 *   from POST /api/auth/login) or `auth: { apiKey }` (or the `Authorization` / `X-API-Key`
 *   headers). Tenant principals only. Each socket joins exactly one room: its own tenant's.
 * - emitToTenant: an event to one tenant's sockets only (emitShownToTenant: each as its principal may
 *   see it); tenantsListening: the tenants with a
 *   socket here (a feature polls for those only).
 * - onClientEvent: a feature's client event, its handler run with the socket's credential checked
 *   again first (one indexed read): a socket whose session ended or whose key was revoked gets
 *   `{ ok: false, statusCode: 401 }` and is disconnected. Every SOCKET_RECHECK_MS (5 s) every open
 *   socket is checked the same way.
 */
@Injectable()
export class RealtimeGateway implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('RealtimeGateway');
  private io: Server | null = null;
  private recheckTimer: NodeJS.Timeout | null = null;
  private sweeping = false;
  private readonly connectionListeners: Array<(socket: Socket, principal: Principal) => void> = [];

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly auth: AuthService,
    @Inject(CONSOLE_OPTIONS) private readonly options: ResolvedConsoleOptions,
  ) {}

  /** False when the app has no HTTP server: nothing is live. */
  get running(): boolean {
    return this.io !== null;
  }

  /** At module init, so the features using it find it running in their own bootstrap, whatever the order. */
  onModuleInit(): void {
    const httpServer = this.adapterHost.httpAdapter?.getHttpServer?.() as HttpServer | undefined;
    if (!httpServer) {
      this.logger.warn('no HTTP server: the socket.io gateway is off');
      return;
    }
    const cors = this.options.socketCorsOrigins.length ? { origin: this.options.socketCorsOrigins, credentials: true } : undefined;
    const io = new Server(httpServer, { path: this.options.socketPath, serveClient: false, ...(cors ? { cors } : {}) });
    // Its answers (the polling handshake, its refusals) never pass Express's securityHeaders: set first, on the server,
    // they are merged into whatever engine.io writes (its own 'headers' event misses the handshake and the refusals).
    const socketPath = this.options.socketPath;
    httpServer.prependListener('request', (req, res) => {
      if (req.url?.startsWith(socketPath)) for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
    });
    io.use((socket, next) => {
      this.authenticate(socket).then(
        () => next(),
        (err: Error) => next(err),
      );
    });
    io.on('connection', (socket) => {
      const principal = socket.data.principal as Principal;
      void socket.join(tenantRoom(principal.tenantId!));
      for (const listener of this.connectionListeners) listener(socket, principal);
    });
    this.io = io;
    this.recheckTimer = setInterval(() => void this.recheckAll(), SOCKET_RECHECK_MS);
    this.recheckTimer.unref();
  }

  beforeApplicationShutdown(): void {
    if (this.recheckTimer) clearInterval(this.recheckTimer);
    this.recheckTimer = null;
    if (this.io) {
      // Close the sockets now: open websockets would keep the HTTP server's close waiting.
      this.io.disconnectSockets(true);
      this.io.engine.close();
      this.io = null;
    }
  }

  /** `event` with `payload` to the tenant's sockets on this console (and, with `except`, not to that socket). */
  emitToTenant(tenantId: string, event: string, payload: unknown, except?: Socket): void {
    if (except) except.to(tenantRoom(tenantId)).emit(event, payload);
    else this.io?.to(tenantRoom(tenantId)).emit(event, payload);
  }

  /**
   * `event` with `payload` to the tenant's sockets on this console, each as its principal may see
   * it now (as shownTo shows the REST reads of the same data: a viewer's secret-named values redacted).
   * For payloads of the tenant's own data (an alarm's `data`); emitToTenant for Baton's own shapes.
   */
  emitShownToTenant(tenantId: string, event: string, payload: unknown): void {
    const sockets = this.io?.of('/').sockets;
    const room = this.io?.of('/').adapter.rooms.get(tenantRoom(tenantId));
    if (!sockets || !room) return;
    let redacted: { value: unknown } | null = null; // made once, for the first viewer
    for (const id of room) {
      const socket = sockets.get(id);
      if (!socket) continue;
      if (seesSecretValues(socket.data.principal as Principal)) socket.emit(event, payload);
      else socket.emit(event, (redacted ??= { value: redact(payload) }).value);
    }
  }

  /** The tenants with at least one socket on this console. */
  *tenantsListening(): Iterable<string> {
    const rooms = this.io?.of('/').adapter.rooms;
    if (!rooms) return;
    for (const [room, sockets] of rooms) if (room.startsWith(TENANT_ROOM_PREFIX) && sockets.size > 0) yield room.slice(TENANT_ROOM_PREFIX.length);
  }

  /** `listener` gets every socket as it connects (authenticated, in its tenant's room), with its principal. */
  onConnection(listener: (socket: Socket, principal: Principal) => void): void {
    this.connectionListeners.push(listener);
  }

  /**
   * Serves client event `name` on every socket: `handler` runs with the socket's credential
   * checked again first, and its answer (or a refusal) goes to the client's acknowledgement.
   */
  onClientEvent<R>(name: string, handler: ClientEventHandler<R>): void {
    this.onConnection((socket) => {
      socket.on(name, (payload: unknown, callback?: unknown) => {
        const reply = typeof callback === 'function' ? (callback as (r: R | EventRefusal) => void) : () => undefined;
        void this.clientEvent(socket, name, reply, (principal) => handler(socket, principal, payload));
      });
    });
  }

  private async clientEvent<R>(socket: Socket, name: string, reply: (r: R | EventRefusal) => void, handle: (principal: Principal) => Promise<R>): Promise<void> {
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
      this.logger.error(`socket event ${name} failed: ${(err as Error).message}`, { tenantId: principal?.tenantId }, (err as Error).stack);
      reply({ ok: false, statusCode: 500, message: 'Internal error' });
    }
  }

  /**
   * A handshake the console could not check (its database unreachable, a pooled session closed
   * under it) is not a refusal: it gets 503 with `retry: true`, and the client connects again
   * (socket.io does not reconnect after a middleware error by itself). The cause goes to the log,
   * not to the client.
   */
  private async authenticate(socket: Socket): Promise<void> {
    const headers = credentialHeaders(socket, this.options.socketCorsOrigins);
    try {
      socket.data.principal = await this.principalOf(headers);
    } catch (err) {
      if ((err as { data?: unknown }).data) throw err;
      this.logger.warn(`socket handshake not checked: ${(err as Error).message}`);
      throw connectError(503, 'The console could not check the credential just now; connect again', true);
    }
    socket.data.credential = headers;
  }

  /** The tenant principal behind a handshake's credential; a connect error when there is none (any more). */
  private async principalOf(headers: Record<string, string | string[] | undefined>): Promise<Principal> {
    let principal: Principal | null;
    try {
      principal = await this.auth.authenticate(headers);
    } catch (err) {
      // A refusal becomes a connect error; anything else (a database error) is thrown as it is.
      if (err instanceof HttpException) throw connectError(err.getStatus(), err.message);
      throw err;
    }
    if (!principal) throw connectError(401, 'Authentication required: connect with the session cookie, auth { token } (POST /api/auth/login) or auth { apiKey }');
    if (!principal.tenantId || !isAllowed(principal, 'tenant', 'GET')) throw connectError(403, 'The live stream is for tenant users');
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
}

/** The error a refused handshake gets: `data` reaches the client's `connect_error` (`retry`: connect again, nothing was refused). */
function connectError(statusCode: number, message: string, retry = false): Error {
  const err = new Error(message) as Error & { data: { statusCode: number; retry?: true } };
  err.data = retry ? { statusCode, retry } : { statusCode };
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
