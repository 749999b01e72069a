import { PATHS, type ExecutorHeartbeat, type ExecutorHeartbeatAck } from '@baton/protocol';
import { describeAnswer, type EngineAnswer, type EngineClient } from './engine-client';
import { engineRound } from './engine-round';
import type { ExecutorEventEmitter } from './events';

/** Bounds applied to an engine's `intervalMs`. */
const MIN_INTERVAL_MS = 10;
const MAX_INTERVAL_MS = 600_000;

/**
 * Sends ExecutorHeartbeat (which is also the registration) at start and then every interval;
 * a round tries the engine URLs (engineRound: engines that failed lately last, the next one
 * when one has not answered within `rerouteAfterMs`), so that one hanging engine does not
 * silence the executor: any engine that hears it keeps it UP. An ack's `intervalMs` becomes the
 * interval; the ack is reported through `onAck`, with when its round began (`mark()`'s reading,
 * before any engine was tried): the sent-ahead lease counts from then (ContactLease).
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
    private readonly onAck: (ack: Partial<ExecutorHeartbeatAck> & { intervalMs: number }, sentAt: number) => void,
    private readonly events: ExecutorEventEmitter,
    private readonly rerouteAfterMs: number,
    private readonly mark: () => number,
  ) {}

  get interval(): number {
    return this.intervalMs;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    void this.tick();
  }

  /**
   * Sends one heartbeat now (outside the schedule), e.g. to announce draining: after the scheduled
   * one on the wire, if any, so the engines get them in the order they were composed (a beat
   * composed before SIGTERM must not land after the last word).
   */
  async beatNow(): Promise<void> {
    await this.current?.catch(() => undefined);
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
    const ok = (a: EngineAnswer) => a.status >= 200 && a.status < 300;
    const sentAt = this.mark();
    const payload = this.payload();
    const { settled, answers } = await engineRound(
      this.client.order(this.engineUrls),
      (url) => this.client.post(url, PATHS.heartbeat, payload),
      ok,
      this.rerouteAfterMs,
      (url) => this.client.setAside(url),
    );
    if (!settled) {
      this.events.emit('heartbeatFailed', { error: answers.map(describeAnswer).join('; ') });
      return;
    }
    const ack = settled.body as Partial<ExecutorHeartbeatAck> | null;
    if (ack && typeof ack.intervalMs === 'number' && Number.isFinite(ack.intervalMs)) {
      this.intervalMs = Math.min(MAX_INTERVAL_MS, Math.max(MIN_INTERVAL_MS, Math.round(ack.intervalMs)));
    }
    this.onAck({ ...(typeof ack?.executorId === 'number' ? { executorId: ack.executorId } : {}), intervalMs: this.intervalMs, ...(typeof ack?.handBacks === 'number' ? { handBacks: ack.handBacks } : {}) }, sentAt);
    this.events.emit('heartbeat', { engineUrl: settled.url, executorId: ack?.executorId ?? -1, intervalMs: this.intervalMs });
  }
}
