import { beforeEach, describe, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { usePacketLog } from '../../../../test/support/packets';
import { deferStatement, sendAhead, sendWriteAhead } from '../engine-queries/riders';
import { inTransaction } from './transaction';

const INSERT = 'INSERT INTO engine_groups (name, description, created_at) VALUES (?, ?, ?)';
const names = async (ds: DataSource) => ((await ds.query('SELECT name FROM engine_groups ORDER BY name')) as Array<{ name: string }>).map((r) => r.name);

/**
 * Riders (riders.ts): the statements of a transaction sent in fewer packets run exactly as if
 * each had been sent alone — the same rows, in the same order, committed or rolled back together —
 * on both databases (SQLite sends each alone); on MariaDB the packets are counted.
 */
describe.each(TEST_DATABASES)('riders on %s', (kind) => {
  const db = useTestDatabase(kind);
  beforeEach(() => db.clear());

  it('commits a deferred write with the transaction, and answers a statement sent ahead once the next is sent', async () => {
    const seen = await inTransaction(db.dataSource, async (em) => {
      await deferStatement(em, INSERT, ['a', '', 1]);
      const ahead = sendAhead(em, "SELECT name FROM engine_groups WHERE name = 'a'", []);
      await em.query(INSERT, ['b', '', 1]);
      return (await ahead).map((r) => r.name);
    });
    expect(seen).toEqual(['a']);
    expect(await names(db.dataSource)).toEqual(['a', 'b']);
  });

  it('answers a write sent ahead with its own answer once the next statement is sent, written in order before it', async () => {
    await db.dataSource.query(INSERT, ['a', '', 1]);
    const answer = await inTransaction(db.dataSource, async (em) => {
      const ahead = sendWriteAhead(em, "UPDATE engine_groups SET description = 'seen' WHERE name = 'a'", []);
      await em.query("INSERT INTO engine_groups (name, description, created_at) SELECT 'b', description, 1 FROM engine_groups WHERE name = 'a'", []);
      return ahead;
    });
    // MariaDB answers the UPDATE's own OK packet (SQLite's driver answers its last rowid, nothing of the UPDATE's).
    if (kind === 'mysql') expect(answer).toMatchObject({ affectedRows: 1 });
    expect(await db.dataSource.query("SELECT name, description FROM engine_groups ORDER BY name")).toEqual([{ name: 'a', description: 'seen' }, { name: 'b', description: 'seen' }]);
  });

  it('answers a statement sent ahead that no statement follows', async () => {
    const seen = await inTransaction(db.dataSource, async (em) => {
      await deferStatement(em, INSERT, ['a', '', 1]);
      return (await sendAhead(em, 'SELECT name FROM engine_groups', [])).map((r) => r.name);
    });
    expect(seen).toEqual(['a']);
  });

  it("fails the transaction on a deferred write's failure and keeps none of its rows", async () => {
    await db.dataSource.query(INSERT, ['taken', '', 1]);
    await expect(
      inTransaction(db.dataSource, async (em) => {
        await em.query(INSERT, ['first', '', 1]);
        await deferStatement(em, INSERT, ['taken', '', 1]);
      }),
    ).rejects.toThrow(/duplicate|unique/i);
    expect(await names(db.dataSource)).toEqual(['taken']);
  });

  it('stops the transaction at a deferred write that fails: the statements after it and the COMMIT throw its error, even when the work catches it', async () => {
    await db.dataSource.query(INSERT, ['taken', '', 1]);
    const thrown: string[] = [];
    await expect(
      inTransaction(db.dataSource, async (em) => {
        await deferStatement(em, INSERT, ['taken', '', 1]);
        await em.query(INSERT, ['after', '', 1]).catch((err: Error) => thrown.push(err.message));
        await em.query(INSERT, ['later', '', 1]).catch((err: Error) => thrown.push(err.message));
      }),
    ).rejects.toThrow(/duplicate|unique/i);
    // SQLite sends a deferred write at once: its failure is its own caller's, and the transaction's.
    if (kind === 'mysql') expect(thrown).toEqual([expect.stringMatching(/duplicate/i), expect.stringMatching(/duplicate/i)]);
    expect(await names(db.dataSource)).toEqual(['taken']);
  });

  it('rolls back what rode along when the work throws', async () => {
    await expect(
      inTransaction(db.dataSource, async (em) => {
        await deferStatement(em, INSERT, ['deferred', '', 1]);
        await em.query(INSERT, ['sent', '', 1]);
        await deferStatement(em, INSERT, ['never sent', '', 1]);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(await names(db.dataSource)).toEqual([]);
  });
});

describe('riders on MariaDB, counted in packets', () => {
  const db = useTestDatabase('mysql');
  beforeEach(() => db.clear());
  const log = usePacketLog(db);

  it("sends the opening with the first statement, a share lock ahead of the INSERT, and the audit-like write with the COMMIT: 2 packets, not 5", async () => {
    await db.dataSource.query(INSERT, ['locked', '', 1]);
    log.clear();
    await inTransaction(db.dataSource, async (em) => {
      const ahead = sendAhead(em, 'SELECT name FROM engine_groups WHERE name = ? LOCK IN SHARE MODE', ['locked']);
      await em.query(INSERT, ['run', '', 1]);
      expect(await ahead).toEqual([{ name: 'locked' }]);
      await deferStatement(em, INSERT, ['audit', '', 1]);
    });
    expect(log.packets).toEqual([expect.stringMatching(/^START TRANSACTION;\nSELECT name .* LOCK IN SHARE MODE;\nINSERT INTO engine_groups/s), expect.stringMatching(/^INSERT INTO engine_groups .*;\nCOMMIT$/s)]);
    expect(await names(db.dataSource)).toEqual(['audit', 'locked', 'run']);
  });

  it('sends a deferred write before a statement issued after it, in a packet of its own (a failure is then never the statement\'s)', async () => {
    await inTransaction(db.dataSource, async (em) => {
      await deferStatement(em, INSERT, ['audit', '', 1]);
      await em.query('SELECT name FROM engine_groups');
    });
    expect(log.packets).toEqual([expect.stringMatching(/^START TRANSACTION;\nINSERT INTO engine_groups/), 'SELECT name FROM engine_groups', 'COMMIT']);
  });

  it('sends nothing for a transaction that issues no statement, and one packet with the isolation level for one that issues one', async () => {
    await inTransaction(db.dataSource, async () => 1);
    expect(log.packets).toEqual([]);
    await inTransaction(db.dataSource, (em) => em.query('SELECT 1 AS one'), { isolation: 'READ COMMITTED' });
    expect(log.packets).toEqual(['SET TRANSACTION ISOLATION LEVEL READ COMMITTED;\nSTART TRANSACTION;\nSELECT 1 AS one', 'COMMIT']);
  });
});
