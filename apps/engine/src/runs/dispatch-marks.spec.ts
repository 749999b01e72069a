import { connect, createServer, type Server, type Socket } from 'node:net';
import type { DataSource } from 'typeorm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '@baton/domain';
import { inTransaction, insertPlannedRuns, openDatabase, RunEntity } from '@baton/persistence';
import { useTestDatabase } from '../../../../test/support/databases';
import type { ClaimedRun } from '../claimed-run';
import { testConfig } from '../testing/engine-test-kit';
import { DispatchMarks } from './dispatch-marks';

const T = 1_767_225_600_000;
const MARK = "UPDATE runs SET state = 'DISPATCHED'";

/**
 * A TCP proxy to MariaDB that cuts the connection carrying the next DISPATCHED mark: either after
 * the server answered it (the mark committed, its answer lost: a writer killed between its commit
 * and its reply) or before the server saw it (nothing committed).
 */
class CuttingProxy {
  private server!: Server;
  private readonly pairs = new Set<[Socket, Socket]>();
  cut: 'after-commit' | 'before-server' | null = null;
  cuts = 0;

  async start(target: { host: string; port: number }): Promise<number> {
    this.server = createServer((client) => {
      const upstream = connect(target.port, target.host);
      const pair: [Socket, Socket] = [client, upstream];
      this.pairs.add(pair);
      let cutting: 'after-commit' | null = null;
      const close = () => {
        client.destroy();
        upstream.destroy();
        this.pairs.delete(pair);
      };
      client.on('data', (chunk) => {
        if (this.cut !== null && chunk.includes(MARK)) {
          const how = this.cut;
          this.cut = null;
          this.cuts++;
          if (how === 'before-server') return close();
          cutting = how;
        }
        upstream.write(chunk);
      });
      upstream.on('data', (chunk) => (cutting ? close() : client.write(chunk)));
      client.on('error', close).on('close', close);
      upstream.on('error', close).on('close', close);
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as { port: number }).port;
  }

  async stop(): Promise<void> {
    for (const sockets of this.pairs) sockets.forEach((s) => s.destroy());
    await new Promise((resolve) => this.server.close(resolve));
  }
}

const claimed = (runId: number): ClaimedRun => ({ runId, attempt: 1, timeoutMs: 60_000 }) as ClaimedRun;

describe('DispatchMarks when a DISPATCHED mark loses its answer (MariaDB)', () => {
  const db = useTestDatabase('mysql');
  const proxy = new CuttingProxy();
  let viaProxy: DataSource;
  let marks: DispatchMarks;
  const clock = new ManualClock(T);

  beforeAll(async () => {
    const url = new URL(db.url);
    url.port = String(await proxy.start({ host: url.hostname, port: Number(url.port) }));
    viaProxy = await openDatabase(url.toString());
    marks = new DispatchMarks(viaProxy, testConfig({ nodeId: 'n1' }), clock);
  });
  afterAll(async () => {
    await viaProxy?.destroy();
    await proxy.stop();
  });
  beforeEach(() => db.clear());
  afterEach(() => {
    proxy.cut = null;
  });

  async function claimedRuns(n: number): Promise<number[]> {
    await inTransaction(db.dataSource, (em) =>
      insertPlannedRuns(
        em,
        Array.from({ length: n }, (_, i) => ({
          tenantId: 'acme', taskId: i + 1, engineGroup: 'default', state: 'PENDING' as const, fireKey: `s:${T}`, priority: 0,
          paramsJson: '{}', scheduledAt: T, dueAt: T, finishedAt: null, error: null,
        })),
        T,
      ),
    );
    const ids = (await db.dataSource.getRepository(RunEntity).find({ order: { id: 'ASC' } })).map((r) => r.id);
    await db.dataSource.getRepository(RunEntity).update(ids, { state: 'CLAIMED', claimedBy: 'n1', attempt: 1 });
    return ids;
  }
  const states = async () => (await db.dataSource.getRepository(RunEntity).find({ order: { id: 'ASC' } })).map((r) => r.state);

  it('a mark that committed but whose answer was lost: its runs are reported marked, to be sent', async () => {
    const ids = await claimedRuns(3);
    proxy.cut = 'after-commit';
    const at = await Promise.all(ids.map((id) => marks.markDispatched(claimed(id), 7)));
    expect(proxy.cuts).toBe(1);
    expect(at).toEqual([T, T, T]);
    expect(await states()).toEqual(['DISPATCHED', 'DISPATCHED', 'DISPATCHED']);
  });

  it('a mark cut before the server saw it: its runs stay CLAIMED and the error reaches the dispatcher', async () => {
    proxy.cuts = 0;
    const ids = await claimedRuns(2);
    proxy.cut = 'before-server';
    const results = await Promise.allSettled(ids.map((id) => marks.markDispatched(claimed(id), 7)));
    expect(proxy.cuts).toBe(1);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(await states()).toEqual(['CLAIMED', 'CLAIMED']);
  });

  it('a run taken over while the mark had no answer is not this node’s to send', async () => {
    const ids = await claimedRuns(2);
    await db.dataSource.getRepository(RunEntity).update({ id: ids[1] }, { claimedBy: 'n2' });
    proxy.cut = 'after-commit';
    const at = await Promise.all(ids.map((id) => marks.markDispatched(claimed(id), 7)));
    expect(at).toEqual([T, null]);
  });
});
