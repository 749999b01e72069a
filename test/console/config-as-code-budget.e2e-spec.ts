/**
 * What a tasks-as-code file may cost: one tenant's file is read off the event loop, so another
 * tenant's requests are answered while it is (asserted by order: GETs answered before the plan's
 * answer), its work is counted before the YAML library runs (entries, nesting: yaml-budget), keys
 * are checked for repeats in one pass, and a refusal lists at most 100 errors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

  it('refuses a file of more entries than the budget before parsing it, up to the body limit', async () => {
    // Just under the body limit (1 MB of JSON), in one-line keys.
    const file = `version: 1\n${keys(70_500)}`;
    expect(JSON.stringify({ file }).length).toBeGreaterThan(1_000_000);
    const res = await plan(file);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'file', reason: expect.stringContaining(`more than ${MAX_YAML_ENTRIES} entries`) }]);
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
});
