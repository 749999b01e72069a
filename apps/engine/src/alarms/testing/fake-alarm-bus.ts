import type { AlarmAckMessage, AlarmBus, AlarmBusListener, AlarmMessage, Unsubscribe } from '@baton/messaging';
import { AlarmBusUnavailableError } from '@baton/messaging';

/**
 * An AlarmBus for unit tests: records what is published (in the order the publishes were made),
 * can be "down" (publishes reject, as StompAlarmBus does without a connection), can fail the
 * n-th publish from now, and can take time per publish (to make relays overlap).
 */
export class FakeAlarmBus implements AlarmBus {
  readonly description = 'fake';
  readonly topicPrefix = 'baton.alarms.';
  readonly published: AlarmMessage[] = [];
  private up = true;
  private failIn: number | null = null;
  private readonly connectionListeners = new Set<(connected: boolean) => void>();

  constructor(private readonly delayMs = 0) {}

  get connected(): boolean {
    return this.up;
  }

  /** Takes the bus down or brings it back (listeners hear it, as the relay does from STOMP). */
  setConnected(up: boolean): void {
    this.up = up;
    for (const l of this.connectionListeners) l(up);
  }

  /** The publish `n` calls from now (1 = the next one) fails, and the bus goes down with it. */
  failPublish(n: number): void {
    this.failIn = n;
  }

  async publish(alarm: AlarmMessage): Promise<void> {
    if (!this.up) throw new AlarmBusUnavailableError('fake bus is down');
    if (this.failIn !== null && --this.failIn === 0) {
      this.failIn = null;
      this.up = false;
      throw new AlarmBusUnavailableError('fake bus failed this publish');
    }
    // Recorded when called: what a broker receives over one connection, in call order.
    this.published.push(JSON.parse(JSON.stringify(alarm)) as AlarmMessage);
    if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
  }

  async publishAck(_ack: AlarmAckMessage): Promise<void> {
    if (!this.up) throw new AlarmBusUnavailableError('fake bus is down');
  }

  subscribe(_listener: AlarmBusListener): Unsubscribe {
    return () => undefined;
  }

  onConnectionChange(listener: (connected: boolean) => void): Unsubscribe {
    this.connectionListeners.add(listener);
    return () => void this.connectionListeners.delete(listener);
  }

  async close(): Promise<void> {
    this.up = false;
  }
}
