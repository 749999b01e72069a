import { describe, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import { ManualClock } from '../common/clock';
import type { ResolvedConsoleOptions } from '../common/options';
import { AuthService } from './auth.service';

/** The cost of a bcrypt hash `$2b$10$…`. */
const costOf = (hash: string) => Number(/^\$2[aby]\$(\d{2})\$/.exec(hash)?.[1]);

describe('AuthService', () => {
  it.each([5, 10])('compares unknown user names against a dummy hash of the real cost (%i), so they take as long as a wrong password', async (rounds) => {
    const options = { passwordHashRounds: rounds } as ResolvedConsoleOptions;
    const auth = new AuthService({} as DataSource, new ManualClock(0), options);
    const real = await auth.hashPassword('password-123');
    expect(costOf(real)).toBe(rounds);
    expect(costOf(auth.dummyHash)).toBe(costOf(real));
  });
});
