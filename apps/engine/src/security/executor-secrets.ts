import type { TenantSecretsRow } from '@baton/persistence';

/** The parts of a tenant row that say which executor secrets are valid. */
export type TenantSecrets = Pick<TenantSecretsRow, 'executorSecret' | 'executorSecretVersion' | 'previousExecutorSecret' | 'previousSecretExpiresAt'>;

/** One executor secret and its version (the tenant's `executor_secret_version` numbering). */
export interface VersionedSecret {
  secret: string;
  version: number;
}

/**
 * The secrets a signed request may use at `now`: the current one, then the previous one while
 * the overlap window of the last rotation lasts (`now` strictly before its expiry).
 */
export function acceptedSecrets(tenant: TenantSecrets, now: number): VersionedSecret[] {
  const current = { secret: tenant.executorSecret, version: tenant.executorSecretVersion };
  const previous = previousSecret(tenant);
  return previous && tenant.previousSecretExpiresAt !== null && now < tenant.previousSecretExpiresAt ? [current, previous] : [current];
}

/** The previous secret whether or not its window is over (to tell "expired" from "wrong"), or null. */
export function previousSecret(tenant: TenantSecrets): VersionedSecret | null {
  return tenant.previousExecutorSecret ? { secret: tenant.previousExecutorSecret, version: tenant.executorSecretVersion - 1 } : null;
}

/**
 * The secrets to sign an engine → executor request with, best first. An executor knows one
 * secret; the one that verified its latest heartbeat (`executorVersion`, recorded on its row) is
 * the one it verifies with, so that comes first. The other accepted one follows, for an executor
 * restarted with the new secret since the routing table was read (see ExecutorClient).
 */
export function signingSecrets(tenant: TenantSecrets, executorVersion: number | null, now: number): VersionedSecret[] {
  const accepted = acceptedSecrets(tenant, now);
  const preferred = accepted.find((s) => s.version === executorVersion);
  return preferred ? [preferred, ...accepted.filter((s) => s !== preferred)] : accepted;
}
