import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CLOCK, type Clock } from '@baton/domain';
import { findTenants, type TenantSecretsRow } from '@baton/persistence';

export type TenantInfo = TenantSecretsRow;

interface Entry {
  tenant: TenantInfo | null;
  loadedAt: number;
}

/** A tenant read this long ago is read again (quota or secret changed in the console). */
const TTL_MS = 5_000;
/** An unknown tenant id is remembered as unknown this long (forged headers must not hammer the database). */
const NEGATIVE_TTL_MS = 1_000;

/**
 * The tenants the engine signs for and paces: executor secret, rate and burst, engine group.
 * Cached per tenant for a few seconds; concurrent lookups of one tenant share one query.
 */
@Injectable()
export class TenantDirectory {
  private readonly cache = new Map<string, Entry>();
  private readonly loading = new Map<string, Promise<TenantInfo | null>>();

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

  /** Age of the cached entry in ms (Infinity when none). */
  ageOf(id: string): number {
    const entry = this.cache.get(id);
    return entry ? this.clock.now() - entry.loadedAt : Infinity;
  }

  private async load(ids: string[]): Promise<void> {
    const todo = ids.filter((id) => !this.loading.has(id));
    if (todo.length > 0) {
      const query = findTenants(this.dataSource.manager, todo).then((rows) => {
        const now = this.clock.now();
        const found = new Map(rows.map((r) => [r.id, r]));
        for (const id of todo) this.cache.set(id, { tenant: found.get(id) ?? null, loadedAt: now });
      });
      const settled = query.finally(() => todo.forEach((id) => this.loading.delete(id)));
      for (const id of todo) this.loading.set(id, settled.then(() => this.cache.get(id)?.tenant ?? null));
    }
    await Promise.all(ids.map((id) => this.loading.get(id)));
  }
}
