import { describe, expect, it } from 'vitest';
import { useTestDatabase } from '../../../../test/support/databases';
import { IDLE_TRANSACTION_TIMEOUT_S } from '../data-source';
import { execute } from '../engine-queries/sql';
import { withIdleAllowance } from './idle-allowance';
import { inTransaction } from './transaction';

describe('withIdleAllowance on MariaDB', () => {
  const db = useTestDatabase('mysql');
  const allowance = async (manager: Parameters<typeof execute>[0]) => Number((await execute<{ t: unknown }>(manager, 'SELECT @@session.idle_transaction_timeout AS t')).rows[0].t);

  it("raises the session's idle allowance for the work inside a transaction, and sets it back after, also when the work fails", async () => {
    const seen = await inTransaction(db.dataSource, async (em) => {
      const before = await allowance(em);
      const during = await withIdleAllowance(em, 60, () => allowance(em));
      const after = await allowance(em);
      await expect(withIdleAllowance(em, 90, () => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
      return { before, during, after, afterFailure: await allowance(em) };
    });
    expect(seen).toEqual({ before: IDLE_TRANSACTION_TIMEOUT_S, during: 60, after: IDLE_TRANSACTION_TIMEOUT_S, afterFailure: IDLE_TRANSACTION_TIMEOUT_S });
  });
});
