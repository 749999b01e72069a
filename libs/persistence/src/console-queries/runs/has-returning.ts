import type { DataSource, EntityManager } from 'typeorm';
import { execute } from '../../engine-queries/sql';

/** Per data source: whether its server is MariaDB ≥ 10.5, whose INSERT takes RETURNING. */
const answers = new WeakMap<DataSource, Promise<boolean>>();

/**
 * Whether `INSERT … RETURNING` works on this MySQL-protocol server: MariaDB from 10.5 on, never
 * MySQL. Read once per data source:
 *
 *   SELECT VERSION() AS v        -- '10.11.19-MariaDB-0+deb12u1', '8.0.36'
 */
export function hasReturning(manager: EntityManager): Promise<boolean> {
  let answer = answers.get(manager.connection);
  if (!answer) {
    answer = execute<{ v: unknown }>(manager, 'SELECT VERSION() AS v').then(
      ({ rows }) => {
        const version = String(rows[0]?.v ?? '');
        const [major, minor] = version.split('.').map(Number);
        return /mariadb/i.test(version) && (major > 10 || (major === 10 && minor >= 5));
      },
      () => false,
    );
    answers.set(manager.connection, answer);
  }
  return answer;
}
