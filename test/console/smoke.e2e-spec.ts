import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../support/databases';
import { cronTask, seedTenant, startConsole, type ConsoleTestApp, type SeededTenant } from './console-test-kit';

describe('smoke', () => {
  const db = useTestDatabase('sqlite');
  let t: ConsoleTestApp;
  let a: SeededTenant;
  beforeAll(async () => {
    t = await startConsole(db.dataSource);
    a = await seedTenant(t, db.dataSource, 'acme');
  });
  afterAll(() => t?.close());

  it('works', async () => {
    const res = await t.http().post('/api/tasks').set(a.admin).send(cronTask('one'));
    console.log(res.status, res.body);
    const bad = await t.http().post('/api/tasks').set(a.admin).set('Content-Type', 'application/json').send('{"a":');
    console.log(bad.status, bad.body);
    const health = await t.http().get('/api/health');
    console.log(health.status, health.body);
    expect(res.status).toBe(201);
  });
});
