import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CLOCK, type Clock } from '@baton/domain';
import { findTenants, type TenantSecretsRow } from '@baton/persistence';

export type TenantInfo = TenantSecretsRow;

interface Entry {
  tenant: TenantInfo | null;
  /** When the query that read it was sent: the row holds every change committed before then. */
  loadedAt: number;
}

/** A tenant read this long ago is read again (quota or secret changed in the console). */
const TTL_MS = 5_000;
/** An unknown tenant id is remembered as unknown this long (forged headers must not hammer the database). */
const NEGATIVE_TTL_MS = 1_000;
/** A refused signature reads a tenant again at most once in this long: at most one read a tenant a second, whatever a forger or a broken executor sends. */
const REREAD_AFTER_REFUSAL_MS = 1_000;

/**
 * The tenants the engine signs for and paces: executor secret, rate and burst, engine group.
 * Cached per tenant for a few seconds; concurrent lookups of one tenant share one query.
 */
@Injectable()
export class TenantDirectory {
  private readonly cache = new Map<string, Entry>();
  private readonly loading = new Map<string, Promise<TenantInfo | null>>();
  /** The latest read of each tenant forced by a refused signature: when it was sent, and its end. */
  private readonly refusalReads = new Map<string, { sentAt: number; done: Promise<unknown> }>();

  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The tenant as cached (possibly stale), without waiting; undefined if not cached. */
  peek(id: string): TenantInfo | undefined {
    return this.cache.get(id)?.tenant ?? undefined;
  }

  /** The tenant, from the cache unless older than `maxAgeMs` (default: its TTL). */
  async get(id: string, options: { maxAgeMs?: number } = {}): Promise<TenantInfo | null> {
    const entry = this.cache.get(id);
    const ttl = options.maxAgeMs ?? (entry?.tenant ? TTL_MS : NEGATIVE_TTL_MS);
    if (entry && this.clock.now() - entry.loadedAt <= ttl) return entry.tenant;
    return this.load([id]).then(() => this.cache.get(id)?.tenant ?? null);
  }

  /**
   * The tenant as read at or after `since`, once a signature made at `since` was refused: by this engine
   * (a request from an executor) or by an executor (a request this engine signed). A secret
   * rotated in the console reaches the cache only within its TTL, so a refusal may mean a secret
   * this engine has not read yet; a read sent since holds it (the executor learnt the secret after
   * the rotation, and was sent the request after that: not within the same millisecond). The cached row when it is
   * that recent; else a read, at most one a tenant per REREAD_AFTER_REFUSAL_MS: `wait` waits for
   * the tenant's next turn (this engine's own request: an executor restarted on the new secret
   * within a second of the rotation still gets its run), otherwise undefined comes back when the
   * turn has not come (a request from outside is refused now, and its executor sends it again).
   */
  async readAfterRefusal(id: string, since: number, wait: boolean): Promise<TenantInfo | null | undefined> {
    const cached = this.cache.get(id);
    if (cached && cached.loadedAt >= since) return cached.tenant;
    const last = this.refusalReads.get(id);
    if (last && last.sentAt >= since) {
      await last.done;
      return this.cache.get(id)?.tenant ?? null;
    }
    const now = this.clock.now();
    const turnAt = last ? last.sentAt + REREAD_AFTER_REFUSAL_MS : now;
    if (turnAt > now) {
      if (!wait) return undefined;
      await new Promise<void>((resolve) => this.clock.after(turnAt - now, resolve));
      return this.readAfterRefusal(id, since, wait); // another waiter may have sent the read meanwhile
    }
    const done = this.read([id]);
    this.refusalReads.set(id, { sentAt: now, done: done.catch(() => undefined) });
    await done;
    return this.cache.get(id)?.tenant ?? null;
  }

  /** Loads the tenants not cached (or stale) in one query; never throws. */
  prefetch(ids: Iterable<string>): void {
    const now = this.clock.now();
    const missing = [...new Set(ids)].filter((id) => {
      const entry = this.cache.get(id);
      return !entry || now - entry.loadedAt > TTL_MS;
    });
    if (missing.length > 0) this.load(missing).catch(() => undefined);
  }

  /** Whether this engine has read the tenant's row (found or not), however long ago. */
  hasRead(id: string): boolean {
    return this.cache.has(id);
  }

  private async load(ids: string[]): Promise<void> {
    const todo = ids.filter((id) => !this.loading.has(id));
    if (todo.length > 0) {
      const settled = this.read(todo).finally(() => todo.forEach((id) => this.loading.delete(id)));
      for (const id of todo) this.loading.set(id, settled.then(() => this.cache.get(id)?.tenant ?? null));
    }
    await Promise.all(ids.map((id) => this.loading.get(id)));
  }

  /** One query for `ids`, cached as read when it was sent (a row read earlier never replaces a later one). */
  private async read(ids: string[]): Promise<void> {
    const sentAt = this.clock.now();
    const rows = await findTenants(this.dataSource.manager, ids);
    const found = new Map(rows.map((r) => [r.id, r]));
    for (const id of ids) {
      const cached = this.cache.get(id);
      if (!cached || cached.loadedAt <= sentAt) this.cache.set(id, { tenant: found.get(id) ?? null, loadedAt: sentAt });
    }
  }
}
