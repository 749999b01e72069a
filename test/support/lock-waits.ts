import type { DataSource } from 'typeorm';

/**
 * Waits until exactly `n` transactions of this test's database wait on a row lock (MariaDB), so a
 * test can let a blocked transaction go knowing it is blocked. Read one check at a time, each 0.2 s
 * after the last: InnoDB refreshes what INFORMATION_SCHEMA.INNODB_TRX shows only when it was not
 * read for 0.1 s, so read more often it shows the first snapshot (no wait) for ever.
 * Only this database's transactions: other test files may share the server.
 */
export async function untilLockWaits(ds: DataSource, n: number): Promise<void> {
  const waiting = async () =>
    Number(
      (
        (await ds.query(
          `SELECT COUNT(*) AS n FROM information_schema.INNODB_TRX t JOIN information_schema.PROCESSLIST p ON p.ID = t.trx_mysql_thread_id WHERE t.trx_state = 'LOCK WAIT' AND p.DB = DATABASE()`,
        )) as Array<{ n: unknown }>
      )[0].n,
    );
  while ((await waiting()) !== n) await new Promise((resolve) => setTimeout(resolve, 200));
}
