import type { AlarmAckMessage, AlarmMessage } from './alarm-message';

/**
 * The port alarms travel through: the engine's outbox relay and the SDK (direct mode) publish,
 * the console's gateway subscribes. Two adapters:
 *
 * - StompAlarmBus: ActiveMQ over STOMP (cluster mode) — heart-beating, reconnection with
 *   backoff over a failover list of brokers, a receipt for every publish;
 * - InProcessAlarmBus: publish and subscribe within one process (embedded mode).
 *
 * Delivery is at least once per subscriber while it is subscribed: what is published while a
 * subscriber is not (its connection is down) is not kept for it by the bus. The console's gateway
 * closes that gap from the database after each (re)subscription (see `subscribed`), and drops
 * repeats by alarm id.
 */
export interface AlarmBus {
  /** For logs: `in-process`, or the broker list. */
  readonly description: string;
  /** Whether a publish can succeed now (STOMP: connected to a broker; in-process: always). */
  readonly connected: boolean;
  /** The alarm topic prefix (`baton.alarms.`). */
  readonly topicPrefix: string;
  /**
   * Publishes an alarm on `<topicPrefix><alarm.tenantId>`. Resolves once the broker has it (STOMP:
   * its RECEIPT); rejects with AlarmBusUnavailableError when not connected, or when no receipt
   * came in time (the connection is then dropped and re-established). Calls made one after the
   * other go out in that order.
   */
  publish(alarm: AlarmMessage): Promise<void>;
  /** Publishes an acknowledgement on the tenant's ack topic (`<ackTopicPrefix><tenantId>`). */
  publishAck(ack: AlarmAckMessage): Promise<void>;
  /** Receives every tenant's alarms and acks (wildcard subscriptions). Survives reconnections. */
  subscribe(listener: AlarmBusListener): Unsubscribe;
  /** Called with true when the bus (re)connects and false when it loses its connection. */
  onConnectionChange(listener: (connected: boolean) => void): Unsubscribe;
  /** Disconnects (STOMP) and stops reconnecting; pending publishes reject. Idempotent. */
  close(): Promise<void>;
}

export type Unsubscribe = () => void;

/** Something received on an alarm topic. The payload is unchecked JSON: see checkAlarmMessage. */
export interface ReceivedAlarm {
  /** The tenant named by the topic the message arrived on. */
  topicTenantId: string;
  /** The parsed JSON body (or undefined when it was not JSON: see `raw`). */
  payload: unknown;
  /** The body as received. */
  raw: string;
}

export interface ReceivedAck {
  topicTenantId: string;
  payload: unknown;
  raw: string;
}

export interface AlarmBusListener {
  alarm(message: ReceivedAlarm): void;
  ack?(message: ReceivedAck): void;
  /**
   * The subscription is active: the first time, and again after each reconnection (`resumed`).
   * What was published while it was not active was not delivered to this listener.
   */
  subscribed?(info: { resumed: boolean }): void;
  /**
   * The subscription was lost with the connection; `subscribed` follows when it is back.
   * `lastHeardAt` (wall clock): when the connection last brought anything from the broker (read
   * then: after a stall of this process, what had waited in the socket counts as heard when read)
   * — what was published after it may not have reached this listener, though the loss is noticed
   * only now (a silent connection is dropped after the heart-beat tolerance).
   */
  lost?(info: { lastHeardAt: number }): void;
}

/** Where a bus reports its own trouble (connection lost, bad messages). */
export interface BusLogger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export const SILENT_BUS_LOGGER: BusLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };
