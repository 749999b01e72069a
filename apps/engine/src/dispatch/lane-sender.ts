import { Inject, Injectable, Logger, OnApplicationShutdown, Optional } from '@nestjs/common';
import type { LookupAddress } from 'node:dns';
import { Worker } from 'node:worker_threads';
import { CLOCK, type Clock } from '@baton/domain';
import { checkingLookup, OUTBOUND_RESOLVER, systemResolveAll, type DispatchRequest, type ResolveAll } from '@baton/protocol';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';
import { ClusterAddressGuard } from '../executors/cluster-address-guard';
import { leaving } from '../executors/leaving-request';
import { dispatchAnswer, ExecutorClient, executorFailure, MAX_ANSWER_BYTES, type DispatchAnswer, type SigningTenant } from '../executors/executor-client';
import { laneThread } from './lane-thread';

/** The thread's reply to one request. */
type ThreadReply = { id: number; leftAfterMs: number } & ({ status: number; body: string } | { code: string; notSent: boolean });

/**
 * Sends the on-time lane's runs from a thread of their own (lane-thread.ts). A run the lane
 * started ahead of its instant is marked DISPATCHED before it; its POST must leave at the
 * instant, and a timer on the engine's main loop fires late by whatever the loop is busy with
 * (a burst's dispatches: tens of ms). Here the request is signed and its executor's address
 * resolved and checked on the main thread, ahead, and the thread — idle but for these — sends it
 * at its instant. The answer comes back to the main loop whenever that is free: it is not on the
 * run's path, the executor has started the run by then.
 *
 * `send` gives null when the thread has nothing to wait for (the instant has come) or cannot take
 * the run (the tenant's networks refuse the executor's address, the name does not resolve, the
 * thread failed, the executor answered 401 to the secret it was signed with): the caller sends it
 * the usual way, which says why. A thread that dies with requests in hand answers them UNKNOWN
 * (they may have left: only the same executor is asked again, and it de-duplicates) and is not
 * used again.
 */
@Injectable()
export class LaneSender implements OnApplicationShutdown {
  private readonly logger = new Logger('LaneSender');
  private worker: Worker | null = null;
  private broken = false;
  private nextId = 0;
  private readonly waiting = new Map<number, (reply: ThreadReply) => void>();
  private readonly timeoutMs: number;

  constructor(
    @Inject(ENGINE_CONFIG) config: EngineConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly client: ExecutorClient,
    private readonly guard: ClusterAddressGuard,
    @Optional() @Inject(OUTBOUND_RESOLVER) private readonly resolve?: ResolveAll,
  ) {
    this.timeoutMs = config.dispatchTimeoutMs;
  }

  /** Sends `request` to `executorUrl` at `sendAt` (never before) from the lane's thread; null: send it the usual way. */
  async send(executorUrl: string, tenant: SigningTenant, request: DispatchRequest, sendAt: number): Promise<{ answer: DispatchAnswer; leftAt: number } | null> {
    if (this.broken || sendAt - this.clock.now() < 1) return null;
    // Signed now, it leaves at sendAt: its time left until its deadline is counted from then.
    const prepared = this.client.prepareDispatch(executorUrl, tenant, leaving(request, sendAt));
    if ('error' in prepared) return null;
    const addresses = await this.addressesOf(prepared.url, tenant);
    if (!addresses) return null;
    const worker = this.thread();
    if (!worker) return null;
    const id = ++this.nextId;
    const postedAt = this.clock.now();
    const reply = await new Promise<ThreadReply>((resolve) => {
      this.waiting.set(id, resolve);
      const delayMs = Math.max(0, sendAt - postedAt);
      worker.postMessage({ id, pool: tenant.id, url: prepared.url, addresses, headers: prepared.headers, body: prepared.body, delayMs, timeoutMs: this.timeoutMs, maxBytes: MAX_ANSWER_BYTES });
    });
    // A refused signature: the usual way tries the tenant's other secret.
    if ('status' in reply && reply.status === 401) return null;
    const answer = dispatchAnswer('status' in reply ? reply : executorFailure(reply, { timeoutMs: this.timeoutMs, maxBytes: MAX_ANSWER_BYTES }), request);
    return { answer, leftAt: Math.max(sendAt, postedAt + Math.round(reply.leftAfterMs)) };
  }

  async onApplicationShutdown(): Promise<void> {
    this.broken = true;
    await this.worker?.terminate();
  }

  /** The executor's addresses, each allowed by the tenant's networks; null when refused or unresolved. */
  private addressesOf(url: string, tenant: SigningTenant): Promise<LookupAddress[] | null> {
    const lookup = checkingLookup(this.guard.check(url, tenant.executorNetworks), this.resolve ?? systemResolveAll);
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    return new Promise((resolve) => lookup(host, { all: true }, (err, addresses) => resolve(err ? null : (addresses as LookupAddress[]))));
  }

  private thread(): Worker | null {
    if (this.worker || this.broken) return this.worker;
    try {
      const worker = new Worker(`(${laneThread.toString()})()`, { eval: true });
      worker.unref();
      worker.on('message', (reply: ThreadReply) => {
        const resolve = this.waiting.get(reply.id);
        this.waiting.delete(reply.id);
        resolve?.(reply);
      });
      worker.on('error', (err) => this.lost(`failed: ${err.message}`));
      worker.on('exit', (code) => this.lost(`exited with code ${code}`));
      this.worker = worker;
    } catch (err) {
      this.lost(`could not start: ${(err as Error).message}`);
    }
    return this.worker;
  }

  private lost(why: string): void {
    if (!this.broken) this.logger.warn(`the on-time lane's thread ${why}; its runs are sent from the main loop from now on`);
    this.broken = true;
    this.worker = null;
    for (const [id, resolve] of this.waiting) resolve({ id, leftAfterMs: 0, code: 'ELANEGONE', notSent: false });
    this.waiting.clear();
  }
}
