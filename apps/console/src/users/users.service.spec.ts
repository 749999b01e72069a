import { describe, expect, it } from 'vitest';
import { UserEntity } from '@baton/persistence';
import { ManualClock } from '../common/clock';
import { useTestDatabase } from '../../../../test/support/databases';
import { AuthService } from '../auth/auth.service';
import type { ResolvedConsoleOptions } from '../common/options';
import { UsersService } from './users.service';

describe('UsersService.ensure on mysql', () => {
  const db = useTestDatabase('mysql');

  it('two consoles starting together both get their bootstrap operator: one creates it, the other finds it', async () => {
    const options = { passwordHashRounds: 4 } as ResolvedConsoleOptions;
    const consoles = [0, 1].map(() => new UsersService(db.dataSource, new AuthService(db.dataSource, new ManualClock(0), options), new ManualClock(0)));
    const created = await Promise.all(consoles.map((c) => c.ensure({ username: 'operator', password: 'operator-password', role: 'OPERATOR' })));
    expect(created.filter(Boolean)).toHaveLength(1);
    expect(await db.dataSource.getRepository(UserEntity).countBy({ username: 'operator' })).toBe(1);
  });
});
