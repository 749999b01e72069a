/**
 * The tasks-as-code routes fuzzed with generated documents: mappings of up to 40,000 keys, lists
 * nested up to 20,000 deep (block, compact `- - -` and flow), files of many wrong tasks, tasks
 * with random field values, and text that is no YAML at all — sent to plan and apply as a tenant
 * admin. Every answer must hold: no 5xx; a 400 is an ErrorBody naming fields, at most 100 and one
 * saying how many more; a refused apply changes no row; the answer stays small (< 64 KB).
 * Seeded (BATON_FUZZ_SEED, printed) and bounded in runs (BATON_FUZZ_RUNS, default 40).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { TEST_DATABASES, useTestDatabase } from '../../support/databases';
import { rowCounts, seedTenant, startConsole, type ConsoleTestApp, type SeededTenant } from '../console-test-kit';

const SEED = Number(process.env.BATON_FUZZ_SEED ?? 4040);
const RUNS = Number(process.env.BATON_FUZZ_RUNS ?? 40);

const bigMapping = fc.integer({ min: 1, max: 40_000 }).map((n) => `version: 1\n${Array.from({ length: n }, (_, i) => `k${i}: ${i}`).join('\n')}`);
const deepList = fc.tuple(fc.integer({ min: 1, max: 20_000 }), fc.constantFrom('block', 'compact', 'flow')).map(([depth, style]) =>
  style === 'flow' ? `version: 1\ntasks: ${'['.repeat(depth)}${']'.repeat(depth)}` : style === 'compact' ? `version: 1\ntasks:\n${'- '.repeat(depth)}x` : `version: 1\ntasks:\n${Array.from({ length: Math.min(depth, 1_000) }, (_, i) => `${'  '.repeat(i)}-`).join('\n')} x`,
);
const anything = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 8 }), fc.string(), { maxKeys: 3 }));
const task = fc.record(
  {
    name: fc.oneof(fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/), anything),
    executorApp: fc.oneof(fc.constant('billing'), anything),
    handler: fc.oneof(fc.constant('closeDay'), anything),
    trigger: fc.oneof(fc.constant({ kind: 'MANUAL' }), fc.record({ kind: fc.constant('CRON'), expression: fc.oneof(fc.constant('0 0 2 * * *'), fc.string()), timeZone: fc.oneof(fc.constant('UTC'), fc.string()) }), anything),
    priority: anything,
    tenantId: fc.constant('bravo'),
  },
  { requiredKeys: ['name'] },
);
const manyTasks = fc.array(task, { minLength: 1, maxLength: 400 }).map((tasks) => stringify({ version: 1, tasks }));
const document = fc.oneof(bigMapping, deepList, manyTasks, fc.string({ maxLength: 2_000 }));

describe.each(TEST_DATABASES)('tasks-as-code documents fuzzed on %s', (kind) => {
  const db = useTestDatabase(kind);
  let t: ConsoleTestApp;
  let acme: SeededTenant;

  beforeAll(async () => {
    t = await startConsole(db.dataSource);
    acme = await seedTenant(t, db.dataSource, 'acme');
  });
  afterAll(() => t?.close());

  it(`answers every generated document with a bounded 200 or 400 and changes nothing when it refuses (seed ${SEED})`, async () => {
    console.log(`[config fuzz] seed ${SEED}, ${RUNS} documents (BATON_FUZZ_SEED, BATON_FUZZ_RUNS)`);
    await fc.assert(
      fc.asyncProperty(document, fc.constantFrom('plan', 'apply'), async (file, route) => {
        const before = await rowCounts(db.dataSource);
        const res = await t.http().post(`/api/config/${route}`).set(acme.adminKey).send({ file });
        expect(res.status, res.text.slice(0, 300)).toBeLessThan(500);
        expect(res.text.length).toBeLessThan(64 * 1024);
        if (res.status === 400) {
          expect(res.body).toMatchObject({ statusCode: 400, code: 'VALIDATION_FAILED', message: expect.any(String) });
          expect(res.body.errors.length).toBeGreaterThan(0);
          expect(res.body.errors.length).toBeLessThanOrEqual(101);
          for (const e of res.body.errors) expect(e).toEqual({ field: expect.any(String), reason: expect.any(String) });
        }
        if (res.status >= 400 || route === 'plan') expect(await rowCounts(db.dataSource)).toEqual(before);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  }, 600_000);
});
