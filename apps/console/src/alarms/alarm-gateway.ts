import { BeforeApplicationShutdown, HttpException, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { Socket } from 'socket.io';
import {
  ALARM_ACK_SCHEMA,
  alarmMessageOf,
  checkAlarmAck,
  checkAlarmMessage,
  RecentIds,
  stableAlarmId,
  type AlarmBus,
  type AlarmMessage,
  type ReceivedAck,
  type ReceivedAlarm,
} from '@baton/messaging';
import type { AlarmEntity, AlarmKey } from '@baton/persistence';
import { actorOf, runAudited } from '../audit';
import { isAllowed } from '../auth/auth.guard';
import { CLOCK, type Clock } from '../common/clock';
import { CONSOLE_OPTIONS, type ResolvedConsoleOptions } from '../common/options';
import type { Principal } from '../common/principal';
import { RealtimeGateway } from '../realtime/realtime.gateway';
import { AlarmsService } from './alarms.service';
import { CONSOLE_ALARM_BUS } from './console-alarm-bus';

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

/** Most alarms re-read from the database after the subscription came back. */
const CATCH_UP_LIMIT = 10_000;

/** Most alarm messages looked up in the database in one read (a burst: one read per this many). */
const LOOKUP_BATCH = 500;

/** Tenants whose unverified messages were logged (once each), most remembered. */
const UNVERIFIED_LOGGED_TENANTS = 10_000;

/**
 * The console's alarms, live: alarm bus (ActiveMQ topics, or in-process) → the realtime gateway
 * (RealtimeGateway: authentication, tenant rooms), and the `alarm:ack` client event.
 *
 * - Subscribes to every tenant's alarm topic (`<prefix>>`). A message on topic T is a notice, not
 *   the alarm: it is taken only if it is a valid `baton.alarm/1` message whose tenantId is T, and
 *   then the alarm it names (its id, of tenant T) is read from the database — the engines write
 *   every alarm there before they publish it — and emitted as the database has it, as `alarm` to
 *   T's room only. A message whose alarm is not there (forged by anything that can reach the
 *   broker, or another tenant's id) is dropped and logged, once per tenant. Notices that arrive
 *   while a read is under way are read together, in one indexed read, and emitted in the order
 *   they came. Each alarm once: repeats (same id and count) are dropped; a viewer's socket gets its
 *   secret-named values redacted, as GET /api/alarms shows them.
 * - After the subscription comes back (broker restart, reconnection), re-reads from the database
 *   what was published while it was down (and what is still waiting in the outbox), emits it in
 *   id order, then what arrived meanwhile: a broker outage loses nothing for the browsers of this
 *   console, and duplicates are dropped by id.
 * - `alarm:ack` `{ id }` (the alarm's stable id, or its REST `alarmId`) from a TENANT_ADMIN
 *   (the socket's credential checked again first, by the realtime gateway):
 *   AlarmsService.ack — the method behind POST /api/alarms/:id/ack — then `alarm:acked` to the
 *   tenant's other sockets here, and on the ack topic to the other console processes, which emit
 *   it to theirs — an ack message is a notice too: they emit the acknowledgement the database
 *   has, and drop one of an alarm it does not have acknowledged.
 *
 * Several console processes: each subscribes and serves its own sockets, so a browser gets every
 * alarm of its tenant once, whichever console it is connected to.
 */
@Injectable()
export class AlarmGateway implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('AlarmGateway');
  private readonly delivered = new RecentIds(100_000);
  private unsubscribe: (() => void) | null = null;
  /** Wall-clock time from which alarms may have been missed (null: subscribed, nothing missed). */
  private lostSince: number | null = null;
  private catchingUp = false;
  /**
   * From a loss of the subscription until the catch-up after it is done, live notices wait in
   * `notices` unread: one that arrives before the catch-up (a broker may deliver as soon as it
   * takes the SUBSCRIBE) must not overtake older alarms the catch-up is about to read.
   */
  private holding = true;
  private catchUpAgain = false;
  /** Notices received and not yet looked up, in the order they came. */
  private notices: AlarmKey[] = [];
  /** The lookups under way (one at a time: they emit in order). */
  private lookingUp: Promise<void> | null = null;
  /** Acks from other consoles being checked against the database. */
  private readonly ackReads = new Set<Promise<void>>();
  private readonly unverifiedLogged = new RecentIds(UNVERIFIED_LOGGED_TENANTS);
  private lastDropLogAt = 0;

  constructor(
    private readonly realtime: RealtimeGateway,
    private readonly alarms: AlarmsService,
    @Inject(CONSOLE_ALARM_BUS) private readonly bus: AlarmBus,
    @Inject(CONSOLE_OPTIONS) private readonly options: ResolvedConsoleOptions,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.realtime.running) return;
    this.realtime.onClientEvent('alarm:ack', (socket, principal, payload) => this.onAck(socket, principal, payload));
    // Until the first subscription is confirmed, anything published may be missed: catch up from now.
    this.lostSince = Date.now();
    this.unsubscribe = this.bus.subscribe({
      alarm: (m) => this.onAlarm(m),
      ack: (m) => this.onRemoteAck(m),
      subscribed: () => void this.catchUp(),
      lost: ({ lastHeardAt }) => {
        // From when the connection went quiet, not from when its loss was noticed: a silent
        // connection is dropped only after the heart-beat tolerance, and what the broker routed
        // to it meanwhile never came.
        this.lostSince = Math.min(this.lostSince ?? lastHeardAt, lastHeardAt);
        this.holding = true;
      },
    });
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = null;
    // Reads under way finish before the database closes.
    await Promise.all([this.lookingUp, ...this.ackReads]);
  }

  // ---- sockets ------------------------------------------------------------------------------

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
      // Audited as POST /api/alarms/:id/ack is: one `alarm.ack` record.
      const actor = actorOf(principal, socket.handshake.address ?? null);
      const view = await runAudited(actor, 'alarm.ack', this.clock, () => this.alarms.ack(tenantId, alarmId, principal.username));
      return { ok: true, alarm: this.acknowledged(tenantId, view, socket) };
    } catch (err) {
      if (err instanceof HttpException) return { ok: false, statusCode: err.getStatus(), message: err.message };
      throw err;
    }
  }

  /**
   * An alarm of the tenant was acknowledged here (by a socket, or POST /api/alarms/:id/ack: a
   * chat-ops bot's, another tab's): `alarm:acked` to the tenant's sockets here (but the one that
   * asked, which has its answer) and on the ack topic to the other consoles. The REST route told
   * no one, and every open console kept the alarm's pop-up.
   */
  acknowledged(tenantId: string, view: { uid: string; id: number; ackedAt: number | null; ackedBy: string | null }, except?: Socket): AlarmAckedEvent {
    const event: AlarmAckedEvent = { id: view.uid, alarmId: view.id, ackedAt: view.ackedAt, ackedBy: view.ackedBy };
    this.realtime.emitToTenant(tenantId, 'alarm:acked', event, except);
    this.bus
      .publishAck({ schema: ALARM_ACK_SCHEMA, ...event, ackedAt: view.ackedAt ?? 0, ackedBy: view.ackedBy ?? '', tenantId, origin: this.options.consoleId })
      .catch((err: Error) => this.logger.warn(`ack not broadcast to the other consoles: ${err.message}`, { tenantId, alarmId: view.id }));
    return event;
  }

  // ---- the bus ------------------------------------------------------------------------------

  private onAlarm(received: ReceivedAlarm): void {
    const checked = checkAlarmMessage(received.payload);
    if (!checked.ok) return this.dropped(`a message on the alarm topic of tenant ${received.topicTenantId}: ${checked.problem}`);
    const alarm = checked.value;
    if (alarm.tenantId !== received.topicTenantId) {
      return this.dropped(`alarm ${alarm.id} of tenant "${alarm.tenantId}" on the topic of tenant "${received.topicTenantId}"`);
    }
    // Delivered already with this count (the relay's copy of one the catch-up read): no read.
    if (this.delivered.has(`${alarm.id}#${alarm.count}`)) return;
    this.notices.push({ tenantId: alarm.tenantId, id: alarm.id });
    this.lookUp();
  }

  /** Looks the waiting notices up, unless held (a catch-up is due) or a lookup is under way (it takes them next). */
  private lookUp(): void {
    if (this.holding || this.lookingUp) return;
    this.lookingUp = this.lookUpWaiting().finally(() => (this.lookingUp = null));
  }

  /**
   * Reads the alarms of the waiting notices, a batch at a time, and emits those the database has
   * (as it has them: with their current count) in the order the notices came.
   */
  private async lookUpWaiting(): Promise<void> {
    while (this.notices.length > 0 && !this.holding) {
      const batch = this.notices.splice(0, LOOKUP_BATCH);
      let rows: AlarmEntity[];
      try {
        rows = await this.alarms.findByStableIds(batch);
      } catch (err) {
        // As a failed catch-up: these pop-ups are lost; the alarms are on the tenants' alarm lists.
        this.logger.error(`could not read ${batch.length} alarm(s) announced on the broker: ${(err as Error).message}`);
        continue;
      }
      const found = new Map(rows.map((row) => [`${row.tenantId}\n${stableAlarmId(row)}`, row]));
      for (const notice of batch) {
        const row = found.get(`${notice.tenantId}\n${notice.id}`);
        if (row) this.emit(alarmMessageOf(row));
        else this.unverified(notice.tenantId, `alarm ${notice.id} on the alarm topic`, 'no such alarm of that tenant');
      }
    }
  }

  /**
   * A message on a tenant's topic that the database does not bear out: never pushed; logged once
   * per tenant (a forger could send thousands).
   */
  private unverified(tenantId: string, what: string, missing: string): void {
    if (!this.unverifiedLogged.add(tenantId)) return;
    this.logger.warn(
      `dropped ${what} of tenant "${tenantId}": the database has ${missing} (forged, or published by something that is not ` +
        'a Baton engine or console: only they may reach the broker); further ones of this tenant are dropped silently',
      { tenantId },
    );
  }

  private onRemoteAck(received: ReceivedAck): void {
    const checked = checkAlarmAck(received.payload);
    if (!checked.ok) return this.dropped(`a message on the ack topic of tenant ${received.topicTenantId}: ${checked.problem}`);
    const ack = checked.value;
    if (ack.tenantId !== received.topicTenantId) return this.dropped(`an ack of tenant "${ack.tenantId}" on the topic of tenant "${received.topicTenantId}"`);
    if (ack.origin === this.options.consoleId) return; // ours: our sockets have it
    // A notice too: the acknowledgement as the database has it — none, none is relayed.
    const read = this.alarms
      .findByStableIds([{ tenantId: ack.tenantId, id: ack.id }])
      .then(([row]) => {
        if (!row || row.ackedAt === null) return this.unverified(ack.tenantId, `an ack of alarm ${ack.id} on the ack topic`, 'no acknowledged alarm of that id');
        const event: AlarmAckedEvent = { id: stableAlarmId(row), alarmId: row.id, ackedAt: row.ackedAt, ackedBy: row.ackedBy };
        this.realtime.emitToTenant(row.tenantId, 'alarm:acked', event);
      })
      .catch((err: Error) => this.logger.error(`could not read the alarm of an ack from another console: ${err.message}`, { tenantId: ack.tenantId }))
      .finally(() => this.ackReads.delete(read));
    this.ackReads.add(read);
  }

  /**
   * Each alarm once per console process (and again for each new count of a collapsed repeat:
   * the pop-up updates its count), to its tenant's room only.
   */
  private emit(alarm: AlarmMessage): void {
    if (!this.delivered.add(`${alarm.id}#${alarm.count}`)) return;
    // The alarm's data is the tenant's (a handler's ctx.alarm): a viewer's socket gets it as GET /api/alarms shows it.
    this.realtime.emitShownToTenant(alarm.tenantId, 'alarm', alarm);
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
      // A lookup begun before the loss emits first: what it read is older than what this reads.
      await this.lookingUp;
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
        this.lookUp();
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
