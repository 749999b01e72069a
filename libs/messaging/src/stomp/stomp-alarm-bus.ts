import type { Client } from 'stompit';
import type { AlarmBus, AlarmBusListener, BusLogger, ReceivedAlarm, Unsubscribe } from '../alarm-bus';
import { SILENT_BUS_LOGGER } from '../alarm-bus';
import { AlarmBusUnavailableError } from '../alarm-bus-unavailable-error';
import {
  alarmTopic,
  checkTopicPrefix,
  defaultAckTopicPrefix,
  DEFAULT_ALARM_TOPIC_PREFIX,
  tenantOfTopic,
  type AlarmAckMessage,
  type AlarmMessage,
} from '../alarm-message';
import { describeBroker, parseBrokerUrl, type BrokerAddress } from './broker-url';
import { stompHeartBeat } from './heart-beat';

export interface StompAlarmBusOptions {
  /** `BATON_BROKER_URL`: `stomp://host:61613`, a comma list, or `failover:(…)` (see parseBrokerUrl). */
  url: string;
  /** Alarm topics are `<topicPrefix><tenantId>`. Default `baton.alarms.`. */
  topicPrefix?: string;
  /** Ack topics are `<ackTopicPrefix><tenantId>`. Default: derived, `baton.alarms-acks.`. */
  ackTopicPrefix?: string;
  /** How often each side sends a STOMP heart-beat, ms (0: off); either may stall 5 × it without a drop (stompHeartBeat). Default 5000. */
  heartbeatMs?: number;
  /** TCP connect timeout per attempt, ms. Default 5000. */
  connectTimeoutMs?: number;
  /** First reconnection delay, ms; it doubles per failed attempt (per broker). Default 100. */
  initialReconnectDelayMs?: number;
  /** Longest delay between reconnection attempts, ms. Default 3000. */
  maxReconnectDelayMs?: number;
  /** A publish without a broker receipt after this long fails and the connection is re-made, ms. Default 5000. */
  receiptTimeoutMs?: number;
  logger?: BusLogger;
}

interface PendingReceipt {
  client: Client;
  timer: NodeJS.Timeout;
  reject(err: Error): void;
}

const ALARMS_SUBSCRIPTION = 1;
const ACKS_SUBSCRIPTION = 2;

/**
 * The alarm bus on ActiveMQ over STOMP (stompit).
 *
 * - Connection: stompit's ConnectFailover over the broker list, in order; after a loss it
 *   reconnects with exponential backoff (initialReconnectDelayMs doubling up to
 *   maxReconnectDelayMs), for ever, moving to the next broker of the list on each failure.
 *   STOMP heart-beating (both ways, stompHeartBeat) drops a connection that went silent.
 * - Publish: a SEND to `/topic/<prefix><tenantId>` with a `receipt`; the promise resolves on the
 *   broker's RECEIPT, so "published" means the broker has it. Without a connection it rejects at
 *   once (AlarmBusUnavailableError): the outbox keeps the alarm and the relay retries.
 * - Subscribe: only when a listener is added (publishers never receive). One wildcard
 *   subscription per kind — `/topic/<prefix>>` (alarms) and `/topic/<ackPrefix>>` (acks) — made
 *   again after every reconnection; listeners hear `lost` and then `subscribed({ resumed: true })`.
 *   Messages are delivered to listeners with the tenant of the topic they arrived on.
 */
export class StompAlarmBus implements AlarmBus {
  readonly description: string;
  readonly topicPrefix: string;
  readonly ackTopicPrefix: string;
  private readonly servers: BrokerAddress[];
  private readonly options: Required<Omit<StompAlarmBusOptions, 'url' | 'topicPrefix' | 'ackTopicPrefix' | 'logger'>>;
  private readonly logger: BusLogger;
  private client: Client | null = null;
  private subscribedOn: Client | null = null;
  private connectHandle: { abort(): void } | null = null;
  private restartTimer: NodeJS.Timeout | null = null;
  private readonly pending = new Set<PendingReceipt>();
  private readonly listeners = new Map<AlarmBusListener, { everSubscribed: boolean }>();
  private readonly connectionListeners = new Set<(connected: boolean) => void>();
  private closed = false;
  private failedAttempts = 0;
  private lastFailureLogAt = 0;
  private reads = 0;

  constructor(options: StompAlarmBusOptions) {
    this.servers = parseBrokerUrl(options.url);
    this.description = this.servers.map(describeBroker).join(',');
    this.topicPrefix = checkTopicPrefix(options.topicPrefix ?? DEFAULT_ALARM_TOPIC_PREFIX);
    this.ackTopicPrefix = checkTopicPrefix(options.ackTopicPrefix ?? defaultAckTopicPrefix(this.topicPrefix), 'ack topic prefix');
    this.options = {
      heartbeatMs: options.heartbeatMs ?? 5000,
      connectTimeoutMs: options.connectTimeoutMs ?? 5000,
      initialReconnectDelayMs: options.initialReconnectDelayMs ?? 100,
      maxReconnectDelayMs: options.maxReconnectDelayMs ?? 3000,
      receiptTimeoutMs: options.receiptTimeoutMs ?? 5000,
    };
    this.logger = options.logger ?? SILENT_BUS_LOGGER;
    this.start();
  }

  get connected(): boolean {
    return this.client !== null;
  }

  /**
   * How many times this bus's connections have read anything from the broker (a keepalive will
   * do), over its life: a caller sees the broker still talking without a frame of its own — the
   * heart-beat test waits on it for the broker's keepalives after a message.
   */
  get readsFromBroker(): number {
    return this.reads;
  }

  publish(alarm: AlarmMessage): Promise<void> {
    return this.send(alarmTopic(this.topicPrefix, alarm.tenantId), JSON.stringify(alarm), {
      'baton-alarm-id': alarm.id,
      'baton-tenant': alarm.tenantId,
    });
  }

  publishAck(ack: AlarmAckMessage): Promise<void> {
    return this.send(alarmTopic(this.ackTopicPrefix, ack.tenantId), JSON.stringify(ack), {
      'baton-alarm-id': ack.id,
      'baton-tenant': ack.tenantId,
    });
  }

  subscribe(listener: AlarmBusListener): Unsubscribe {
    this.listeners.set(listener, { everSubscribed: false });
    const client = this.client;
    if (client) {
      if (this.subscribedOn === client) queueMicrotask(() => this.notifySubscribed(listener));
      else this.ensureSubscriptions(client);
    }
    return () => void this.listeners.delete(listener);
  }

  onConnectionChange(listener: (connected: boolean) => void): Unsubscribe {
    this.connectionListeners.add(listener);
    return () => void this.connectionListeners.delete(listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.connectHandle?.abort();
    const client = this.client;
    this.client = null;
    this.subscribedOn = null;
    this.failPending(null, new AlarmBusUnavailableError('the alarm bus was closed'));
    this.listeners.clear();
    this.connectionListeners.clear();
    if (client) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          (client as unknown as { destroy(): void }).destroy();
          resolve();
        }, 1000);
        client.disconnect(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  // ---- connection ---------------------------------------------------------------------------

  private start(): void {
    if (this.closed) return;
    const { header: heartbeat, heartbeatOutputMargin, heartbeatDelayMargin } = stompHeartBeat(this.options.heartbeatMs);
    // Loaded here, not at the top: the executor SDK's core entry imports this lib, and a plain
    // executor without direct alarms must not load stompit (test/packaging checks the module cache).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { ConnectFailover } = require('stompit') as typeof import('stompit');
    const failover = new ConnectFailover(
      this.servers.map((s) => ({
        host: s.host,
        port: s.port,
        ssl: s.ssl,
        timeout: this.options.connectTimeoutMs,
        heartbeatOutputMargin,
        heartbeatDelayMargin,
        connectHeaders: {
          host: '/',
          'heart-beat': heartbeat,
          ...(s.login !== undefined ? { login: s.login } : {}),
          ...(s.passcode !== undefined ? { passcode: s.passcode } : {}),
        },
      })) as never,
      {
        initialReconnectDelay: this.options.initialReconnectDelayMs,
        maxReconnectDelay: this.options.maxReconnectDelayMs,
        useExponentialBackOff: true,
        reconnectDelayExponent: 2,
        maxReconnects: -1,
        randomize: false,
      },
    );
    failover.on('error', (err) => this.logConnectFailure(err));
    this.connectHandle = failover.connect((err, client, reconnect, server) => {
      if (err) {
        // Every broker refused us for good (e.g. an ERROR frame on CONNECT: bad credentials).
        // Not for ever: try the whole list again later.
        this.logger.error(`[alarm bus] cannot connect to ${this.description}: ${err.message}; trying again in ${this.options.maxReconnectDelayMs} ms`);
        this.restartTimer = setTimeout(() => this.start(), this.options.maxReconnectDelayMs);
        this.restartTimer.unref();
        return;
      }
      if (this.closed) {
        (client as unknown as { destroy(): void }).destroy();
        return;
      }
      // (stompit hands a ConnectState here, not the Server of its typings.)
      const state = server as unknown as { serverProperties?: { connectOptions?: object }; connectOptions?: object };
      const address = (state.serverProperties?.connectOptions ?? state.connectOptions ?? {}) as { host?: string; port?: number; ssl?: boolean };
      this.onConnected(client, reconnect, describeBroker({ host: address.host ?? '?', port: address.port ?? 0, ssl: address.ssl === true }));
    });
  }

  private onConnected(client: Client, reconnect: () => void, where: string): void {
    // When this connection last brought anything (a keepalive will do): what the broker routed to
    // us after it may be lost with the connection, however late the loss is noticed.
    let lastHeardAt = Date.now();
    client.getTransportSocket().on('data', () => {
      lastHeardAt = Date.now();
      this.reads++;
    });
    let down = false;
    const onDown = (err?: Error) => {
      if (down) return;
      down = true;
      const wasCurrent = this.client === client;
      if (wasCurrent) {
        this.client = null;
        if (this.subscribedOn === client) this.subscribedOn = null;
      }
      this.failPending(client, new AlarmBusUnavailableError(`lost the broker connection (${where})${err ? `: ${err.message}` : ''}`));
      if (this.closed) return;
      this.logger.warn(`[alarm bus] lost ${where}${err ? `: ${err.message}` : ''}; reconnecting`);
      if (wasCurrent) {
        this.emitConnection(false);
        for (const listener of this.listeners.keys()) this.call(() => listener.lost?.({ lastHeardAt }));
      }
      reconnect();
    };
    client.on('error', (err: Error) => onDown(err));
    client.on('end', () => onDown());
    this.client = client;
    this.failedAttempts = 0;
    this.logger.info(`[alarm bus] connected to ${where}`);
    this.emitConnection(true);
    this.ensureSubscriptions(client);
  }

  private logConnectFailure(err: Error): void {
    this.failedAttempts++;
    const now = Date.now();
    // The first failure, then at most one line per 30 s while the broker stays away.
    if (this.failedAttempts === 1 || now - this.lastFailureLogAt >= 30_000) {
      this.lastFailureLogAt = now;
      this.logger.warn(`[alarm bus] cannot reach ${this.description} (attempt ${this.failedAttempts}): ${err.message}; retrying with backoff`);
    }
  }

  private emitConnection(connected: boolean): void {
    for (const l of this.connectionListeners) this.call(() => l(connected));
  }

  // ---- subscriptions ------------------------------------------------------------------------

  private ensureSubscriptions(client: Client): void {
    if (this.listeners.size === 0 || this.subscribedOn === client) return;
    this.subscribedOn = client;
    client.setImplicitSubscription(ALARMS_SUBSCRIPTION, 'auto', (err, message) => {
      if (!err) this.read(message, this.topicPrefix, (m) => this.forEachListener((l) => l.alarm(m)));
    });
    client.setImplicitSubscription(ACKS_SUBSCRIPTION, 'auto', (err, message) => {
      if (!err) this.read(message, this.ackTopicPrefix, (m) => this.forEachListener((l) => l.ack?.(m)));
    });
    let receipts = 0;
    const onReceipt = () => {
      if (++receipts < 2 || this.client !== client || this.closed) return;
      for (const listener of this.listeners.keys()) this.notifySubscribed(listener);
    };
    // SUBSCRIBE with a receipt (stompit's subscribe() takes none): `subscribed` means the broker
    // routes to us from now on, which the gateway's catch-up relies on.
    client.sendFrame('SUBSCRIBE', { destination: `/topic/${this.topicPrefix}>`, id: ALARMS_SUBSCRIPTION, ack: 'auto' }, { onReceipt } as never).end();
    client.sendFrame('SUBSCRIBE', { destination: `/topic/${this.ackTopicPrefix}>`, id: ACKS_SUBSCRIPTION, ack: 'auto' }, { onReceipt } as never).end();
  }

  private notifySubscribed(listener: AlarmBusListener): void {
    const state = this.listeners.get(listener);
    if (!state) return;
    const resumed = state.everSubscribed;
    state.everSubscribed = true;
    this.call(() => listener.subscribed?.({ resumed }));
  }

  private read(message: Client.Message, prefix: string, deliver: (m: ReceivedAlarm) => void): void {
    const headers = (message as unknown as { headers: Record<string, string | undefined> }).headers;
    const destination = String(headers.destination ?? '');
    message.readString('utf-8', (err, raw) => {
      if (err || raw === undefined) return;
      const topicTenantId = tenantOfTopic(prefix, destination);
      if (!topicTenantId) {
        this.logger.warn(`[alarm bus] message on unexpected destination "${destination}" ignored`);
        return;
      }
      let payload: unknown;
      try {
        payload = JSON.parse(raw);
      } catch {
        payload = undefined;
      }
      deliver({ topicTenantId, payload, raw });
    });
  }

  private forEachListener(call: (listener: AlarmBusListener) => void): void {
    for (const listener of this.listeners.keys()) this.call(() => call(listener));
  }

  private call(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.logger.error(`[alarm bus] a listener failed: ${(err as Error).stack ?? String(err)}`);
    }
  }

  // ---- publishing ---------------------------------------------------------------------------

  private send(destination: string, body: string, headers: Record<string, string>): Promise<void> {
    const client = this.client;
    if (!client || this.closed) {
      return Promise.reject(new AlarmBusUnavailableError(`not connected to a broker (${this.description})`));
    }
    return new Promise<void>((resolve, reject) => {
      const entry: PendingReceipt = {
        client,
        reject,
        timer: setTimeout(() => {
          this.pending.delete(entry);
          reject(new AlarmBusUnavailableError(`no receipt from the broker within ${this.options.receiptTimeoutMs} ms`));
          // A broker that takes SENDs without answering is as good as gone: start over.
          client.destroy(new Error('receipt timeout'));
        }, this.options.receiptTimeoutMs),
      };
      this.pending.add(entry);
      const onReceipt = () => {
        clearTimeout(entry.timer);
        if (this.pending.delete(entry)) resolve();
      };
      try {
        const frame = client.send(
          { destination: `/topic/${destination}`, 'content-type': 'application/json;charset=utf-8', ...headers },
          { onReceipt } as never,
        );
        frame.end(body);
      } catch (err) {
        clearTimeout(entry.timer);
        this.pending.delete(entry);
        reject(new AlarmBusUnavailableError(`publish failed: ${(err as Error).message}`));
      }
    });
  }

  /** Rejects the publishes waiting for a receipt on `client` (all of them when null). */
  private failPending(client: Client | null, err: Error): void {
    for (const entry of [...this.pending]) {
      if (client !== null && entry.client !== client) continue;
      clearTimeout(entry.timer);
      this.pending.delete(entry);
      entry.reject(err);
    }
  }
}
