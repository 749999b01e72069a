import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiKeyEntity, findApiKey, findUserById, insertApiKey, inTransaction, listApiKeys, liveApiKeyNamed, lockTenant, ownerNames, revokeApiKey, tenantExists } from '@baton/persistence';
import { badRequest, conflict, forbidden, notFound } from '../common/api-error';
import { CLOCK, Clock } from '../common/clock';
import type { Principal } from '../common/principal';
import { newApiKey } from '../common/secrets';
import { auditChange, auditNoChange } from '../audit';
import type { ApiKeyRole } from '../api-types';
import { ApiKeyView, CreatedApiKeyView } from './dto/api-key.dto';

export function apiKeyView(row: ApiKeyEntity, ownerUsername: string | null): ApiKeyView {
  return {
    id: row.id,
    tenantId: row.tenantId,
    name: row.name,
    prefix: row.prefix,
    role: row.role,
    ownerUserId: row.ownerUserId,
    ownerUsername,
    createdAt: row.createdAt,
    revokedAt: row.revokedAt,
  };
}

/** Tenant API keys; used by the tenant's own routes and by the operator's. */
@Injectable()
export class ApiKeysService {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Keys of one tenant, or of every tenant when `tenantId` is undefined (operator). */
  async list(tenantId: string | undefined): Promise<ApiKeyView[]> {
    const rows = await listApiKeys(this.dataSource.manager, tenantId);
    const names = await ownerNames(this.dataSource.manager, [...new Set(rows.map((r) => r.ownerUserId).filter((id) => id !== null))]);
    return rows.map((row) => apiKeyView(row, row.ownerUserId === null ? null : (names.get(row.ownerUserId) ?? null)));
  }

  /**
   * Creates a key owned by the calling user — or, called with a key, by that key's owner, so a
   * key never outlives the user behind it. A key with no owner (made before owners were
   * recorded) cannot make keys. Its name is unique among the tenant's live keys (409 otherwise;
   * a revoked key's name is free again, for a rotation): an approval step that names
   * `api-key:<name>` is decided by that one key, and the audit log's actor is that key.
   */
  async create(tenantId: string, name: string, role: ApiKeyRole | undefined, caller: Principal): Promise<CreatedApiKeyView> {
    const owner = await this.ownerFor(caller);
    const { key, prefix, hash } = newApiKey();
    const row = Object.assign(new ApiKeyEntity(), {
      tenantId,
      name,
      role: role ?? 'TENANT_VIEWER',
      ownerUserId: owner.id,
      prefix,
      keyHash: hash,
      createdAt: this.clock.now(),
      revokedAt: null,
    });
    await inTransaction(this.dataSource, async (em) => {
      // Two keys made at once under one name: the second waits here for the first's commit, and its
      // reads, the first of the transaction after the lock (so its snapshot's), see that key.
      await lockTenant(em, tenantId);
      if (!(await tenantExists(em, tenantId))) {
        throw badRequest([{ field: 'tenantId', reason: `no tenant "${tenantId}"` }]);
      }
      if (await liveApiKeyNamed(em, tenantId, name)) {
        const reason = `a live API key of this tenant is named "${name}": revoke it first, or choose another name`;
        throw conflict(`name: ${reason}`, [{ field: 'name', reason }]);
      }
      await insertApiKey(em, row);
      await auditChange(em, { tenantId, objectType: 'api-key', objectId: row.id, after: apiKeyView(row, owner.username) });
    });
    return { ...apiKeyView(row, owner.username), key };
  }

  private async ownerFor(caller: Principal): Promise<{ id: number; username: string }> {
    if (caller.userId !== null) return { id: caller.userId, username: caller.username };
    const owner = caller.actsForUserId === null ? null : await findUserById(this.dataSource.manager, caller.actsForUserId);
    if (!owner) throw forbidden('This API key was made before keys recorded their owner, so it cannot make keys: log in as a user to make one');
    return { id: owner.id, username: owner.username };
  }

  /** Revokes a key of `tenantId` (any tenant's when undefined). Revoking twice is harmless: 204 again, and no record (nothing changed). */
  async revoke(tenantId: string | undefined, id: number): Promise<void> {
    await inTransaction(this.dataSource, async (em) => {
      const row = await findApiKey(em, tenantId, id);
      if (!row) throw notFound('API key', id);
      // Revoked already: nothing changes, and no record says it did.
      if (row.revokedAt !== null) return auditNoChange();
      const before = apiKeyView(row, null);
      row.revokedAt = this.clock.now();
      await revokeApiKey(em, { tenantId: row.tenantId, id: row.id, now: row.revokedAt });
      await auditChange(em, { tenantId: row.tenantId, objectType: 'api-key', objectId: row.id, before, after: apiKeyView(row, null) });
    });
  }
}
