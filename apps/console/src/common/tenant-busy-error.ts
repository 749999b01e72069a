import { RetryLaterError } from './retry-later-error';

/** 429 TENANT_BUSY, `Retry-After: 1`: the tenant has as many console requests waiting as TenantAdmission lets wait. */
export class TenantBusyError extends RetryLaterError {
  constructor(message: string) {
    super(message, 1, 'TENANT_BUSY');
  }
}
