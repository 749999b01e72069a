/**
 * Ids are canonical decimal integers: `/api/tasks/1.0` is not task 1. Every integer path
 * parameter of the OpenAPI document, and the integer query parameters, refuse any other
 * spelling of a number (`1.0`, `01`, `1e0`, ` 1`, `+1`, `0x1`, beyond 2^53) with a 400 naming
 * the parameter, and never reach the object the number would have meant.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DATABASES, useTestDatabase } from '../support/databases';
import { cronTask, insertRun, seedOperator, seedTenant, startConsole, type ConsoleTestApp, type Credentials, type SeededTenant } from './console-test-kit';

/** Spellings of 1 (or of no number) that are not the canonical "1". */
const NOT_CANONICAL = ['1.0', '01', '1e0', ' 1', '1 ', '+1', '0x1', '0b1', '1n', '1_0', '-1', '0', '-0', '9007199254740993', '99999999999999999999', 'Infinity', 'NaN'];

interface Operation {
  method: string;
  path: string;
  params: Array<{ name: string; in: string; schema?: { type?: string } }>;
}

describe.each(TEST_DATABASES)('strict integer ids on %s', (kind) => {
  const db = useTestDatabase(kind);
  let t: ConsoleTestApp;
  let a: SeededTenant;
  let operator: Credentials;
  let operations: Operation[];

  beforeAll(async () => {
    t = await startConsole(db.dataSource);
    operator = await seedOperator(t, db.dataSource);
    a = await seedTenant(t, db.dataSource, 'acme');
    // Object 1 of each kind the tenant can own exists, so a coerced "1" would be found (200/204), not 404.
    const task = await t.http().post('/api/tasks').set(a.admin).send(cronTask('one'));
    expect(task.body.id).toBe(1);
    await insertRun(db.dataSource, a.id, 1);
    const doc = await t.http().get('/api/docs-json');
    operations = Object.entries(doc.body.paths as Record<string, Record<string, { parameters?: Operation['params'] }>>).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, params: op.parameters ?? [] })),
    );
  });

  afterAll(() => t?.close());

  it('refuses every non-canonical id on every integer path parameter with a 400 naming it', async () => {
    const routes = operations.filter((op) => op.params.some((p) => p.in === 'path' && p.schema?.type === 'number'));
    expect(routes.length).toBeGreaterThan(30);
    const failures: string[] = [];
    for (const op of routes) {
      const param = op.params.find((p) => p.in === 'path' && p.schema?.type === 'number')!;
      const creds = op.path.startsWith('/api/operator/') ? operator : a.admin;
      for (const id of NOT_CANONICAL) {
        // The route's other path parameters get a valid value, so the refusal is the one of the parameter tried.
        const url = op.path.replace(`{${param.name}}`, encodeURIComponent(id)).replace(/\{[^}]+\}/g, '1');
        const req = t.http()[op.method.toLowerCase() as 'get'](url).set(creds);
        const res = op.method === 'GET' || op.method === 'DELETE' ? await req : await req.send({});
        const named = (res.body.errors as Array<{ field: string }> | undefined)?.some((e) => e.field === param.name);
        if (res.status !== 400 || res.body.code !== 'VALIDATION_FAILED' || !named) {
          failures.push(`${op.method} ${url} → ${res.status} ${JSON.stringify(res.body).slice(0, 160)}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it('still finds object 1 at its canonical id', async () => {
    expect((await t.http().get('/api/tasks/1').set(a.admin)).status).toBe(200);
    expect((await t.http().get('/api/runs/1').set(a.admin)).status).toBe(200);
  });

  it.each([
    ['/api/tasks', 'limit'],
    ['/api/runs', 'limit'],
    ['/api/runs', 'taskId'],
    ['/api/alarms', 'from'],
    ['/api/dependencies', 'taskId'],
    ['/api/stats', 'windowMs'],
    ['/api/ui/stats-series', 'taskId'],
  ])('refuses non-canonical integers in the query: %s?%s=…', async (path, name) => {
    for (const value of ['01', ' 1', '1 ', '+1', '1.0', '1e0', '0x1', '-0', '99999999999999999999']) {
      const res = await t.http().get(`${path}?${name}=${encodeURIComponent(value)}`).set(a.admin);
      expect(res.status, `${name}=${JSON.stringify(value)}: ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: name })]));
    }
    expect((await t.http().get(`${path}?${name}=1`).set(a.admin)).status).not.toBe(400);
  });

  it('refuses non-canonical ids in the task-summaries id list', async () => {
    for (const ids of ['1.0', '0x1', '1e0', '01', '1,+1', '1, 1']) {
      const res = await t.http().get(`/api/ui/task-summaries?ids=${encodeURIComponent(ids)}`).set(a.admin);
      expect(res.status, ids).toBe(400);
      expect(res.body.errors).toEqual([expect.objectContaining({ field: 'ids' })]);
    }
    const ok = await t.http().get('/api/ui/task-summaries?ids=1').set(a.admin);
    expect(ok.status).toBe(200);
    expect(ok.body.map((s: { taskId: number }) => s.taskId)).toEqual([1]);
  });
});
