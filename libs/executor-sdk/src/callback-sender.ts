import { PATHS, type RunCallback } from '@baton/protocol';
import { backoffDelay, WakeableSleep } from './backoff';
import { CallbackBatches } from './callback-batches';
import { describeAnswer, type EngineAnswer, type EngineClient } from './engine-client';
import { engineRound, type RoundResult } from './engine-round';
import type { ExecutorEventEmitter } from './events';
import type { CallbackSpool, SpoolEntry } from './spool';

/** 2xx, or 409 (the engine already has this outcome): the callback needs no further sending. */
export function isDelivered(status: number): boolean {
  return (status >= 200 && status < 300) || status === 409;
}

/** The engine says the callback itself is malformed: sending it again cannot help. */
export function isRejectedForGood(status: number): boolean {
  return status === 400 || status === 413 || status === 422;
}

interface Config {
  engineUrls: readonly string[];
  baseMs: number;
  maxMs: number;
  concurrency: number;
  /** An engine that has not answered within this is set aside and the callback goes to the next one too (engineRound). */
  rerouteAfterMs: number;
  /** Resolves when a new callback may go (StartsFirst: not while runs wait in line to start). Default: at once. */
  turn?: () => Promise<void>;
}

/**
 * Delivers final callbacks: each is already in the spool; it is sent to the engines (one round
 * = each URL once, in the dispatch's order, the next one also when an engine has not answered
 * within `rerouteAfterMs` — any engine takes any callback, and a second copy gets 409), and
 * after a failed round retried with backoff.
 * Callbacks on their way to the same engine at the same moment share one request (CallbackBatches). Delivered
 * (2xx/409) or refused for good (400/413/422) → removed from the spool. A 429 (the engine's
 * TENANT_BUSY / TENANT_RATE_LIMITED, or any other) is tried again later like a 503, but not
 * before its `Retry-After`. A success wakes every callback sleeping in backoff (the engines are
 * back) — except those an engine told when to come back: waking them would send the tenant's
 * whole backlog into its bounds again on every success. Within `concurrency` requests at once:
 * the limit is on requests, not callbacks, so that what waits meanwhile joins the next batch
 * instead of waiting for a callback's place and going in small batches.
 */
export class CallbackSender {
  private readonly pending = new Map<string, SpoolEntry>();
  private readonly sleep = new WakeableSleep();
  private stopped = false;
  private idleWaiters: Array<() => void> = [];
  private readonly batches: CallbackBatches;

  constructor(
    private readonly config: Config,
    private readonly client: EngineClient,
    private readonly spool: CallbackSpool,
    private readonly events: ExecutorEventEmitter,
  ) {
    this.batches = new CallbackBatches(client, config.concurrency, config.rerouteAfterMs);
  }

  get size(): number {
    return this.pending.size;
  }

  has(id: string): boolean {
    return this.pending.has(id);
  }

  /** Starts delivering an entry (already written to the spool). */
  enqueue(entry: SpoolEntry): void {
    if (this.stopped || this.pending.has(entry.id)) return;
    this.pending.set(entry.id, entry);
    void this.deliver(entry);
  }

  /** One round for an interim callback: no spool, no retry. True when an engine took it. */
  async sendOnce(urls: readonly string[], callback: RunCallback): Promise<boolean> {
    const { settled } = await this.round(urls, (url) => this.client.post(url, PATHS.callback, callback));
    return settled !== undefined && isDelivered(settled.status);
  }

  /** Resolves true when nothing is pending, false if `timeoutMs` passed first. */
  async flush(timeoutMs: number): Promise<boolean> {
    if (this.pending.size === 0) return true;
    this.sleep.wake();
    let timer: NodeJS.Timeout | undefined;
    const idle = new Promise<boolean>((resolve) => this.idleWaiters.push(() => resolve(true)));
    const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    try {
      return await Promise.race([idle, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Stops retrying (what is pending stays in the spool). */
  stop(): void {
    this.stopped = true;
    this.sleep.wake();
  }

  /** One round over the callback's engines and then the configured ones, until one takes it or refuses it for good. */
  private round(urls: readonly string[], send: (url: string) => Promise<EngineAnswer>): Promise<RoundResult> {
    const order = this.client.order([...urls, ...this.config.engineUrls]);
    return engineRound(order, send, (a) => isDelivered(a.status) || isRejectedForGood(a.status), this.config.rerouteAfterMs, (url) => this.client.setAside(url));
  }

  private async deliver(entry: SpoolEntry): Promise<void> {
    const { runId, attempt } = entry.callback;
    let tries = 0;
    await this.config.turn?.();
    while (!this.stopped) {
      tries++;
      const { settled, answers } = await this.round(entry.urls, (url) => this.batches.send(url, entry.callback));
      if (settled) {
        if (isDelivered(settled.status)) {
          if (this.events.listens('callbackDelivered')) this.events.emit('callbackDelivered', { runId, attempt, engineUrl: settled.url, status: settled.status, tries });
          this.sleep.wake();
        } else {
          this.events.emit('callbackDropped', { runId, attempt, engineUrl: settled.url, status: settled.status, message: describeAnswer(settled) });
        }
        await this.spool.remove(entry.id).catch(() => undefined);
        this.pending.delete(entry.id);
        if (this.pending.size === 0) this.idleWaiters.splice(0).forEach((w) => w());
        return;
      }
      if (this.stopped) return;
      const holdMs = Math.max(0, ...answers.map((a) => a.retryAfterMs ?? 0));
      const delayMs = Math.max(holdMs, backoffDelay(tries, this.config.baseMs, this.config.maxMs));
      this.events.emit('callbackRetry', { runId, attempt, tries, delayMs, error: answers.map(describeAnswer).join('; ') || 'no engine URL' });
      const heldUntil = Date.now() + holdMs;
      await this.sleep.sleep(delayMs);
      // Woken early by another callback's success: still not before the engine's Retry-After.
      while (!this.stopped && Date.now() < heldUntil) await this.sleep.sleep(heldUntil - Date.now());
    }
  }
}
