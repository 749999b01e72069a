/**
 * What a tasks-as-code file may cost: one tenant's file is read off the event loop, so another
 * tenant's requests are answered while it is (asserted by order: GETs answered before the plan's
 * answer), its work is counted before the YAML library runs (entries, nesting: yaml-budget), keys
 * are checked for repeats in one pass, and a refusal lists at most 100 errors.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { percentile } from '../cluster/support/figures';
import { MAX_YAML_DEPTH, MAX_YAML_ENTRIES } from '../../apps/console/src/config-as-code/yaml-budget';
import { TEST_DATABASES, useTestDatabase } from '../support/databases';
import { seedTenant, startConsole, type ConsoleTestApp, type SeededTenant } from './console-test-kit';

const keys = (n: number) => Array.from({ length: n }, (_, i) => `k${i}: ${i}`).join('\n');

describe.each(TEST_DATABASES)('tasks-as-code budget on %s', (kind) => {
  const db = useTestDatabase(kind);
  let t: ConsoleTestApp;
  let acme: SeededTenant;
  let beta: SeededTenant;

  beforeAll(async () => {
    t = await startConsole(db.dataSource);
    acme = await seedTenant(t, db.dataSource, 'acme');
    beta = await seedTenant(t, db.dataSource, 'beta');
  }, 60_000);
  afterAll(() => t?.close());

  const plan = (file: string) => t.http().post('/api/config/plan').set(acme.adminKey).send({ file });

  it("answers another tenant's requests while one tenant's mapping of 25,000 keys is read, then refuses it with 100 errors and how many more", async () => {
    let planAnswered = false;
    const planned = plan(`version: 1\n${keys(25_000)}`).then((res) => {
      planAnswered = true;
      return res;
    });
    // Another tenant's plain GETs, one after the other until the plan answers: with the file read
    // on the event loop, 2 were (sent before the parse began), 134 with it read in a worker.
    let answeredBefore = 0;
    while (!planAnswered) {
      const res = await t.http().get('/api/tasks').set(beta.viewerKey);
      expect(res.status).toBe(200);
      if (!planAnswered) answeredBefore++;
    }
    const res = await planned;
    expect(res.status).toBe(400);
    expect(answeredBefore).toBeGreaterThanOrEqual(20);
    expect(res.body.errors).toHaveLength(101);
    expect(res.body.errors[0]).toEqual({ field: 'k0', reason: expect.stringMatching(/^unknown key/) });
    expect(res.body.errors[100]).toEqual({ field: 'errors', reason: '24900 more not listed (the first 100 are)' });
    expect(res.text.length).toBeLessThan(30_000);
  }, 60_000);

  it('refuses a file of more entries than the budget before parsing it, up to the body limit of a file (4 MB, other routes 1 MB)', async () => {
    // Just under the body limit of a file (4 MB of JSON), in one-line keys.
    const file = `version: 1\n${keys(250_000)}`;
    expect(JSON.stringify({ file }).length).toBeGreaterThan(4_000_000);
    const res = await plan(file);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'file', reason: expect.stringContaining(`more than ${MAX_YAML_ENTRIES} entries`) }]);
    const past = await plan(`${file}\n${keys(20_000)}`);
    expect(past.status).toBe(413);
    expect(past.body.errors).toEqual([{ field: 'body', reason: `request body too large (limit ${4 * 1024 * 1024} bytes)` }]);
    // The larger limit is the file routes' only.
    const task = await t.http().post('/api/tasks').set(acme.adminKey).send({ name: 'big', executorApp: 'billing', handler: 'closeDay', trigger: { kind: 'MANUAL' }, params: { text: 'x'.repeat(1_100_000) } });
    expect(task.status).toBe(413);
  });

  it.each([
    ['block sequences', `version: 1\ntasks:\n${'- '.repeat(12_000)}x`],
    ['flow sequences', `version: 1\ntasks: ${'['.repeat(12_000)}${']'.repeat(12_000)}`],
    ['flow mappings', `version: 1\nretention: ${'{a: '.repeat(1_000)}1${'}'.repeat(1_000)}`],
    ['indented mappings', `version: 1\n${Array.from({ length: 200 }, (_, i) => `${' '.repeat(i)}a:`).join('\n')} 1`],
  ])('refuses %s nested deeper than the budget before parsing them', async (_, file) => {
    const res = await plan(file);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'file', reason: expect.stringContaining(`more than ${MAX_YAML_DEPTH} levels deep`) }]);
  });

  it('refuses a repeated key, naming it and its line', async () => {
    const res = await plan('version: 1\ntasks: []\ncalendars: []\ntasks: []\n');
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'file', reason: 'is not valid YAML: Map keys must be unique: "tasks" at line 4, column 1' }]);
  });

  it('refuses a tenantId in a task, naming the field, as POST /api/tasks does', async () => {
    const file = `version: 1\ntasks:\n  - name: mine\n    tenantId: beta\n    executorApp: billing\n    handler: closeDay\n    trigger: { kind: MANUAL }\n`;
    const res = await plan(file);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'tasks[0].tenantId', reason: 'unknown field (not allowed)' }]);
    const rest = await t.http().post('/api/tasks').set(acme.adminKey).send({ name: 'mine', tenantId: 'beta', executorApp: 'billing', handler: 'closeDay', trigger: { kind: 'MANUAL' } });
    expect(rest.body.errors).toEqual([{ field: 'tenantId', reason: 'unknown field (not allowed)' }]);
  });

  it("logs what one tenant's files cost the others: B's GET p99 alone and while A plans big files back to back, and the event loop's delay p99", async () => {
    const tasks = Array.from({ length: 1000 }, (_, i) => ({ name: `task-${i}`, executorApp: 'billing', handler: 'closeDay', params: { shard: i }, trigger: { kind: 'CRON', expression: `0 ${i % 60} * * * *`, timeZone: 'UTC' } }));
    const files = [`version: 1\n${keys(16_000)}`, `version: 1\n${keys(70_500)}`, stringify({ version: 1, tasks }), `version: 1\ntasks: ${'['.repeat(12_000)}${']'.repeat(12_000)}`];
    const getB = async () => {
      const started = performance.now();
      const res = await t.http().get('/api/tasks?limit=50').set(beta.viewerKey);
      expect(res.status).toBe(200);
      return performance.now() - started;
    };
    const alone: number[] = [];
    for (let i = 0; i < 40; i++) alone.push(await getB());
    const loop = monitorEventLoopDelay({ resolution: 5 });
    loop.enable();
    let planning = true;
    const planMs: number[] = [];
    const planner = (async () => {
      for (let round = 0; round < 3; round++) {
        for (const file of files) {
          const started = performance.now();
          expect([200, 400]).toContain((await plan(file)).status);
          planMs.push(performance.now() - started);
        }
      }
      planning = false;
    })();
    const during: number[] = [];
    while (planning) during.push(await getB());
    await planner;
    loop.disable();
    const f = (ms: number[]) => `p50 ${percentile(ms, 50).toFixed(1)} / p99 ${percentile(ms, 99).toFixed(1)} ms`;
    console.log(
      `[tasks-as-code budget] ${kind}: A's ${planMs.length} plans (16,000 keys, 1 MB, 1,000 tasks, 12,000 deep) ${f(planMs)}; event-loop delay p99 ${(loop.percentile(99) / 1e6).toFixed(1)} ms, max ${(loop.max / 1e6).toFixed(1)} ms; B's GET alone ${f(alone)}, during (${during.length}) ${f(during)}`,
    );
  }, 240_000);
});
