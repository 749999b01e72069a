import { PATHS, type ExecutorHeartbeat, type ExecutorHeartbeatAck } from '@baton/protocol';
import { describeAnswer, type EngineClient } from './engine-client';
import type { ExecutorEventEmitter } from './events';

/** Bounds applied to an engine's `intervalMs`. */
const MIN_INTERVAL_MS = 10;
const MAX_INTERVAL_MS = 600_000;

/**
 * Sends ExecutorHeartbeat (which is also the registration) at start and then every interval;
 * a round tries each engine URL once (last good first). An ack's `intervalMs` becomes the
 * interval; its `executorId` is reported through `onAck`.
 */
export class HeartbeatLoop {
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private current: Promise<void> | null = null;

  constructor(
    private intervalMs: number,
    private readonly engineUrls: readonly string[],
    private readonly client: EngineClient,
    private readonly payload: () => ExecutorHeartbeat,
    private readonly onAck: (ack: ExecutorHeartbeatAck) => void,
    private readonly events: ExecutorEventEmitter,
  ) {}

  get interval(): number {
    return this.intervalMs;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    void this.tick();
  }

  /** Sends one heartbeat now (outside the schedule), e.g. to announce draining. */
  beatNow(): Promise<void> {
    return this.beat();
  }

  stop(): void {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private async tick(): Promise<void> {
    if (!this.running) return;
    this.current ??= this.beat().finally(() => (this.current = null));
    await this.current;
    if (!this.running) return;
    this.timer = setTimeout(() => void this.tick(), this.intervalMs);
    this.timer.unref?.();
  }

  private async beat(): Promise<void> {
    const failures: string[] = [];
    for (const url of this.client.order(this.engineUrls)) {
      const answer = await this.client.post(url, PATHS.heartbeat, this.payload());
      if (answer.status >= 200 && answer.status < 300) {
        const ack = answer.body as Partial<ExecutorHeartbeatAck> | null;
        if (ack && typeof ack.intervalMs === 'number' && Number.isFinite(ack.intervalMs)) {
          this.intervalMs = Math.min(MAX_INTERVAL_MS, Math.max(MIN_INTERVAL_MS, Math.round(ack.intervalMs)));
        }
        if (ack && typeof ack.executorId === 'number') this.onAck({ executorId: ack.executorId, intervalMs: this.intervalMs });
        this.events.emit('heartbeat', { engineUrl: url, executorId: ack?.executorId ?? -1, intervalMs: this.intervalMs });
        return;
      }
      failures.push(describeAnswer(answer));
    }
    this.events.emit('heartbeatFailed', { error: failures.join('; ') });
  }
}
