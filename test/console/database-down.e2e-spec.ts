/**
 * The database down under a running console: its calls — a list, a task, a login — are answered
 * 503 UNAVAILABLE with Retry-After and the one ErrorBody naming the cause, not 500 "Internal
 * server error", so clients send them again; once the database answers again, so does the
 * console. The outage is the data source failing to give a connection as mysql2's pool does
 * when nothing listens (ECONNREFUSED, marked fatal).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { useTestDatabase } from '../support/databases';
import { seedTenant, startConsole, type ConsoleTestApp, type SeededTenant } from './console-test-kit';

describe('console with its database down', () => {
  const db = useTestDatabase('sqlite');
  let t: ConsoleTestApp;
  let acme: SeededTenant;
  let taskId: number;

  beforeAll(async () => {
    t = await startConsole(db.dataSource);
    acme = await seedTenant(t, db.dataSource, 'acme');
    const task = await t.http().post('/api/tasks').set(acme.admin).send({ name: 'report', trigger: { kind: 'MANUAL' }, executorApp: 'demo', handler: 'noop' });
    expect(task.status).toBe(201);
    taskId = task.body.id;
  });
  afterAll(() => t?.close());

  it('answers 503 with Retry-After and the cause while the database refuses connections, and serves again once it is back', async () => {
    const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:3306'), { code: 'ECONNREFUSED', errno: -111, syscall: 'connect', fatal: true });
    const outage = vi.spyOn(db.dataSource, 'createQueryRunner').mockImplementation(() => {
      throw refused();
    });
    try {
      const answers = [
        await t.http().get('/api/runs').set(acme.admin),
        await t.http().get(`/api/tasks/${taskId}`).set(acme.viewerKey),
        await t.http().post('/api/auth/login').send({ tenant: 'acme', username: 'acme-admin', password: 'password-123' }),
      ];
      for (const res of answers) {
        expect(res.status).toBe(503);
        expect(res.headers['retry-after']).toBe('5');
        expect(res.body).toEqual({ statusCode: 503, code: 'UNAVAILABLE', error: 'Service Unavailable', message: 'the database is unreachable; try again shortly' });
      }
    } finally {
      outage.mockRestore();
    }
    expect((await t.http().get('/api/runs').set(acme.admin)).status).toBe(200);
    expect((await t.http().get(`/api/tasks/${taskId}`).set(acme.viewerKey)).status).toBe(200);
  });
});
