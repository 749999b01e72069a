import type { TenantDirectory } from '../tenants/tenant-directory';

/** A tenant directory for an ExecutorClient without a database (unit tests, the executor-client bench): a refused signature reads nothing again. */
export const NO_TENANT_REREAD = { readAfterRefusal: () => Promise.resolve(undefined) } as unknown as TenantDirectory;
