import type { EntityManager } from 'typeorm';
import { IDLE_TRANSACTION_TIMEOUT_S } from '../data-source';
import { execute } from '../engine-queries/sql';

/**
 * Runs `work` in the transaction of `manager` with MariaDB's `idle_transaction_timeout` raised to
 * `seconds` for it, and set back to IDLE_TRANSACTION_TIMEOUT_S after it, on the same session:
 *
 *   SET SESSION idle_transaction_timeout = ?        -- takes effect inside the open transaction
 *
 * For the few transactions that compute between their statements: a tasks-as-code apply works
 * out every task's schedule before it writes them (about a second for 1,000 tasks; past the 5 s
 * allowance on a loaded machine, where the server closed the session mid-apply: ECONNRESET, 500).
 * Every other transaction keeps the 5 s that ends a frozen process's locks before a takeover
 * (data-source.ts). SQLite: nothing to set.
 */
export async function withIdleAllowance<T>(manager: EntityManager, seconds: number, work: () => Promise<T>): Promise<T> {
  if (manager.connection.options.type !== 'mariadb') return work();
  await execute(manager, 'SET SESSION idle_transaction_timeout = ?', [seconds]);
  try {
    return await work();
  } finally {
    await execute(manager, 'SET SESSION idle_transaction_timeout = ?', [IDLE_TRANSACTION_TIMEOUT_S]).catch(() => undefined);
  }
}
