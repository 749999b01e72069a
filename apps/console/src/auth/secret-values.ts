import { redact } from '@baton/domain';
import type { Principal } from '../common/principal';
import { isAllowed } from './auth.guard';

/**
 * Whether `principal` is shown secret-named values (a param such as `apiToken`: redact's names,
 * @baton/domain) in clear where the tenant's data is shown — tasks, runs, the tasks-as-code
 * export, events, alarms (REST, and the live pop-ups: RealtimeGateway.emitShownToTenant), the
 * executors' handler params schemas (their values: redactParamsSchema, by the same names): a
 * TENANT_ADMIN, who may change them and applies an export back. A viewer sees them as the audit
 * log and the task versions show them to everyone: redacted.
 */
export function seesSecretValues(principal: Principal): boolean {
  return isAllowed(principal, 'tenant-admin', 'GET');
}

/** `value` as `principal` may see it: whole, or redacted (seesSecretValues). */
export function shownTo<T>(principal: Principal, value: T): T {
  return seesSecretValues(principal) ? value : (redact(value) as T);
}
