import { beforeEach, describe, expect, it } from 'vitest';
import { EventEntity, inTransaction, type RunEntity } from '@baton/persistence';
import { errorBody } from '@baton/protocol';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { seedTenant } from '../../../../test/cluster/support/seed';
import { usePacketLog } from '../../../../test/support/packets';
import type { SubmissionOutcome } from '../submissions/submission';
import type { EventInput } from './event';
import { EVENT_ROWS, type EventsWrite } from './event-rows';

const NOW = 1_790_000_000_123;
/** Stands for the runs' INSERT the lane issues between the two halves (any statement of the transaction). */
const RUNS_INSERT = 'INSERT INTO engine_groups (name, description, created_at) VALUES (?, ?, ?)';

const event = (name: string, idempotencyKey: string | null = null): EventInput => ({ name, payload: { name }, idempotencyKey });
const started = (id: number): SubmissionOutcome => ({ status: 201, run: { id } as RunEntity, taskName: 'sync' });
const refused: SubmissionOutcome = { status: 404, error: errorBody(404, { message: 'no task' }) };

/** A request's events, event 0 starting two runs (submissions 0 and 3), the others one each. */
function request(): { write: EventsWrite; outcomes: SubmissionOutcome[] } {
  return {
    write: { events: [event('a'), event('b', 'key-b'), event('c')], owner: [0, 1, 2, 0], written: [] },
    outcomes: [started(11), started(12), refused, started(14)],
  };
}

let standIns = 0;

/** The lane's order: the rows before the runs, the runs' INSERT, the rows after them. */
async function writeInLaneOrder(em: Parameters<typeof EVENT_ROWS.beforeRuns>[0], write: EventsWrite, outcomes: SubmissionOutcome[]): Promise<void> {
  await EVENT_ROWS.beforeRuns(em, 'acme', [write], NOW);
  await em.query(RUNS_INSERT, [`runs-${++standIns}`, '', NOW]);
  await EVENT_ROWS.afterRuns(em, 'acme', [write], [outcomes], NOW);
}

describe.each(TEST_DATABASES)('the events written with their runs (EVENT_ROWS) on %s', (kind) => {
  const db = useTestDatabase(kind);
  beforeEach(async () => {
    await db.clear();
    await seedTenant(db.dataSource, { id: 'acme', engineGroup: 'default' });
  });

  it('stores keyed and unkeyed events, each answered with its own id and the runs it started, as stored', async () => {
    const { write, outcomes } = request();
    await inTransaction(db.dataSource, (em) => writeInLaneOrder(em, write, outcomes));
    expect(write.written.map(({ row, created }) => [row.name, row.runIds, created])).toEqual([
      ['a', [11, 14], true],
      ['b', [12], true],
      ['c', [], true],
    ]);
    const stored = new Map((await db.dataSource.getRepository(EventEntity).find()).map((row) => [row.id, row]));
    expect(write.written.map(({ row }) => [stored.get(row.id)?.name, stored.get(row.id)?.runIds, stored.get(row.id)?.idempotencyKey])).toEqual([
      ['a', [11, 14], null],
      ['b', [12], 'key-b'],
      ['c', [], null],
    ]);
  });

  it('keeps no event of a transaction that fails after its runs', async () => {
    const { write, outcomes } = request();
    await expect(
      inTransaction(db.dataSource, async (em) => {
        await writeInLaneOrder(em, write, outcomes);
        throw new Error('a later statement failed');
      }),
    ).rejects.toThrow('a later statement failed');
    expect(await db.dataSource.getRepository(EventEntity).count()).toBe(0);
  });
});

describe('the events written with their runs, counted in packets on MariaDB', () => {
  const db = useTestDatabase('mysql');
  beforeEach(async () => {
    await db.clear();
    await seedTenant(db.dataSource, { id: 'acme', engineGroup: 'default' });
  });
  const log = usePacketLog(db);

  it("sends unkeyed events in the packet of the runs' INSERT and their run ids with the COMMIT: 2 packets, as a trigger's", async () => {
    // The step between a multi-row INSERT's ids is read once per data source: a first batch reads it.
    await inTransaction(db.dataSource, (em) => writeInLaneOrder(em, request().write, request().outcomes));
    log.clear();
    const write: EventsWrite = { events: [event('a'), event('c')], owner: [0, 1], written: [] };
    await inTransaction(db.dataSource, (em) => writeInLaneOrder(em, write, [started(21), started(22)]));
    expect(log.packets).toEqual([
      expect.stringMatching(/^START TRANSACTION;\nINSERT INTO events .*;\nINSERT INTO engine_groups/s),
      expect.stringMatching(/^UPDATE events SET run_ids = .*;\nCOMMIT$/s),
    ]);
    expect(write.written.map(({ row }) => row.runIds)).toEqual([[21], [22]]);
  });
});
