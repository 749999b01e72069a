import { describe, expect, it } from 'vitest';
import { isTerminal, type RunState } from '@baton/domain';
import { useCluster, waitFor } from './support/cluster';
import { countBy, printFigures } from './support/figures';
import { addDependency, insertTask } from './support/seed';

/**
 * Issue #3, "Done when" — a chain and a fan-in across processes (2 engines, 2 executors):
 * A → B → C, with B failing its first attempt (`fail-n-times`, failures 1, retry maxAttempts 2),
 * and D depending on both A and B. A runs once, B twice (only B is retried, in place — never
 * the chain), C once, and D once, after both of its parents. Invocations counted from the
 * executors' record files.
 */
describe('cluster: chain A → B → C with a retried step, fan-in D ⇐ {A, B} (2 engines, 2 executors)', () => {
  const ctx = useCluster('chain');

  it('retries only the failed step and fires the fan-in child once, after both parents', async () => {
    const c = ctx.cluster;
    await c.startEngines(2);
    await c.startExecutors(2);

    const at = Math.ceil((Date.now() + 2_500) / 1000) * 1000;
    const manual = { kind: 'MANUAL' as const };
    // A is made paused and resumed once its edges exist: its run is claimed up to 10 s ahead, with
    // whether it has children read at the claim, so an edge added after that is not A's run's to
    // follow (on a loaded machine the seeding below outlasted the claim, and B never fired).
    const a = await insertTask(c.ds, c.tenant, { name: 'A', trigger: { kind: 'ONCE', at }, handler: 'record', paused: true });
    const b = await insertTask(c.ds, c.tenant, {
      name: 'B',
      trigger: manual,
      handler: 'fail-n-times',
      params: { failures: 1 },
      retry: { maxAttempts: 2, backoffBaseMs: 300, backoffMaxMs: 1_000, jitter: 0 },
    });
    const cc = await insertTask(c.ds, c.tenant, { name: 'C', trigger: manual, handler: 'record' });
    const d = await insertTask(c.ds, c.tenant, { name: 'D', trigger: manual, handler: 'record' });
    await addDependency(c.ds, c.tenant, a, b);
    await addDependency(c.ds, c.tenant, b, cc);
    await addDependency(c.ds, c.tenant, a, d);
    await addDependency(c.ds, c.tenant, b, d);
    await c.ds.query(`UPDATE tasks SET paused = 0 WHERE id = ?`, [a]);
    const taskIds = [a, b, cc, d];
    const name = new Map([
      [a, 'A'],
      [b, 'B'],
      [cc, 'C'],
      [d, 'D'],
    ]);

    await waitFor(
      async () => {
        const runs = await c.runs(taskIds);
        return runs.length === 4 && runs.every((r) => isTerminal(r.state as RunState));
      },
      { timeoutMs: 30_000, what: 'one ended run of each of A, B, C, D', detail: async () => JSON.stringify((await c.runs(taskIds)).map((r) => [name.get(r.taskId), r.state, r.attempt])) },
    );
    await c.settled(); // past this, a second run of D (or of anything) could only come from a bug
    const runs = await c.runs(taskIds);
    const runOf = (task: number) => runs.filter((r) => r.taskId === task);
    const records = c.records();
    const invocationsOf = (task: number) =>
      records.filter((rec) => runOf(task).some((r) => r.id === rec.runId)).sort((x, y) => x.at - y.at || x.attempt - y.attempt);

    const [ra, rb, rc, rd] = taskIds.map((t) => runOf(t)[0]);
    printFigures('chain A → B → C (B fails once, maxAttempts 2), fan-in D ⇐ {A, B}', {
      'runs per task': countBy(runs, (r) => name.get(r.taskId)),
      'run states': runs.map((r) => `${name.get(r.taskId)}: run ${r.id} ${r.state} attempt ${r.attempt}, flow ${r.flowId}, parent ${r.parentRunId ?? '-'}, engine ${r.claimedBy}`),
      'handler invocations': Object.fromEntries(taskIds.map((t) => [name.get(t), invocationsOf(t).map((i) => `attempt ${i.attempt} on ${i.executor} at +${i.at - at} ms`)])),
    });

    expect(runs).toHaveLength(4);
    for (const t of taskIds) expect(runOf(t)).toHaveLength(1);
    expect(runs.every((r) => r.state === 'SUCCEEDED')).toBe(true);
    expect(invocationsOf(a).map((i) => i.attempt)).toEqual([1]);
    expect(invocationsOf(b).map((i) => i.attempt)).toEqual([1, 2]);
    expect(invocationsOf(cc).map((i) => i.attempt)).toEqual([1]);
    expect(invocationsOf(d).map((i) => i.attempt)).toEqual([1]);
    expect(rb.attempt).toBe(2);
    // One flow, rooted at A's run; C follows B; D fired by the last parent to finish (B), after it.
    expect(ra.flowId).toBeNull(); // the root: its flow is its id
    expect(runs.every((r) => (r.flowId ?? r.id) === ra.id)).toBe(true);
    expect(rb.parentRunId).toBe(ra.id);
    expect(rc.parentRunId).toBe(rb.id);
    expect(rd.parentRunId).toBe(rb.id);
    const bSecond = invocationsOf(b)[1];
    expect(invocationsOf(d)[0].at).toBeGreaterThanOrEqual(bSecond.at);
    // On one clock: D's handler started (an executor's Date.now) after both parents finished (theirs). A run's
    // createdAt is the engine's clock, aligned to the database's: it may differ from the executors' by the
    // offset's measuring error, and once read 1 ms before B's finishedAt though D was made after B's callback.
    expect(invocationsOf(d)[0].at).toBeGreaterThanOrEqual(rb.finishedAt!);
    expect(invocationsOf(d)[0].at).toBeGreaterThanOrEqual(ra.finishedAt!);
  }, 90_000);
});
