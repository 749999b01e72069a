import { describe, expect, it } from 'vitest';
import { isTransientLockError, isUniqueViolation } from './errors';

/** A driver error as mysql2 gives it, wrapped as TypeORM's QueryFailedError carries it. */
const failed = (code: string, errno: number) => ({ name: 'QueryFailedError', driverError: { code, errno } });

describe('isTransientLockError', () => {
  it('takes a deadlock, a lock wait timeout and either met on the AUTO-INC lock as a transaction to run again', () => {
    expect(isTransientLockError(failed('ER_LOCK_DEADLOCK', 1213))).toBe(true);
    expect(isTransientLockError(failed('ER_LOCK_WAIT_TIMEOUT', 1205))).toBe(true);
    expect(isTransientLockError(failed('ER_AUTOINC_READ_FAILED', 1467))).toBe(true);
    expect(isTransientLockError({ errno: 1467 })).toBe(true);
  });

  it('leaves other errors to their callers', () => {
    expect(isTransientLockError(failed('ER_DUP_ENTRY', 1062))).toBe(false);
    expect(isTransientLockError(new Error('Failed to read auto-increment value'))).toBe(false);
    expect(isUniqueViolation(failed('ER_DUP_ENTRY', 1062))).toBe(true);
  });
});
