import type { AlarmBus, AlarmBusListener, BusLogger, Unsubscribe } from './alarm-bus';
import { SILENT_BUS_LOGGER } from './alarm-bus';
import { AlarmBusUnavailableError } from './alarm-bus-unavailable-error';
import { checkTopicPrefix, DEFAULT_ALARM_TOPIC_PREFIX, type AlarmAckMessage, type AlarmMessage } from './alarm-message';

/**
 * The alarm bus of embedded mode: engine relay and console gateway in one process. A publish is
 * delivered to the listeners subscribed at that moment, in publish order, as the same JSON text a
 * broker would carry (serialised and parsed again, so no object is shared between publisher and
 * subscribers). Delivery happens on a microtask after `publish` is called, never inside it.
 */
export class InProcessAlarmBus implements AlarmBus {
  readonly description = 'in-process';
  readonly topicPrefix: string;
  private readonly listeners = new Set<AlarmBusListener>();
  private readonly connectionListeners = new Set<(connected: boolean) => void>();
  private closed = false;
  private readonly logger: BusLogger;

  constructor(options: { topicPrefix?: string; logger?: BusLogger } = {}) {
    this.topicPrefix = checkTopicPrefix(options.topicPrefix ?? DEFAULT_ALARM_TOPIC_PREFIX);
    this.logger = options.logger ?? SILENT_BUS_LOGGER;
  }

  get connected(): boolean {
    return !this.closed;
  }

  publish(alarm: AlarmMessage): Promise<void> {
    if (this.closed) return Promise.reject(new AlarmBusUnavailableError('the in-process alarm bus is closed'));
    const raw = JSON.stringify(alarm);
    const topicTenantId = alarm.tenantId;
    queueMicrotask(() => {
      for (const listener of this.listeners) {
        this.deliver(() => listener.alarm({ topicTenantId, payload: JSON.parse(raw), raw }));
      }
    });
    return Promise.resolve();
  }

  publishAck(ack: AlarmAckMessage): Promise<void> {
    if (this.closed) return Promise.reject(new AlarmBusUnavailableError('the in-process alarm bus is closed'));
    const raw = JSON.stringify(ack);
    const topicTenantId = ack.tenantId;
    queueMicrotask(() => {
      for (const listener of this.listeners) {
        if (listener.ack) this.deliver(() => listener.ack!({ topicTenantId, payload: JSON.parse(raw), raw }));
      }
    });
    return Promise.resolve();
  }

  subscribe(listener: AlarmBusListener): Unsubscribe {
    this.listeners.add(listener);
    if (listener.subscribed) queueMicrotask(() => this.listeners.has(listener) && this.deliver(() => listener.subscribed!({ resumed: false })));
    return () => void this.listeners.delete(listener);
  }

  onConnectionChange(listener: (connected: boolean) => void): Unsubscribe {
    this.connectionListeners.add(listener);
    return () => void this.connectionListeners.delete(listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.listeners.clear();
    for (const l of this.connectionListeners) this.deliver(() => l(false));
    this.connectionListeners.clear();
  }

  private deliver(call: () => void): void {
    try {
      call();
    } catch (err) {
      this.logger.error(`[alarm bus] a listener failed: ${(err as Error).stack ?? String(err)}`);
    }
  }
}
