import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createExecutorServer, defineHandler } from '@baton/executor-sdk';
import { embeddedBanner } from '../../apps/embedded/src/banner';
import { demoLogins } from '../../apps/embedded/src/demo-seed';
import { startEmbedded, type EmbeddedBaton } from '../../apps/embedded/src/start-embedded';
import { EngineAlreadyRunningError } from '../../apps/engine/src';

describe('embedded mode (npm start)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'baton-embedded-'));
  const config = { databaseUrl: `sqlite:${join(dir, 'baton.sqlite')}`, host: '127.0.0.1', port: 0 };
  const logins = demoLogins({});
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The banner's executor line, checked against the demo tenant's secret as the database has it (the API shows it only once). */
  async function executorEnvOfBanner(baton: EmbeddedBaton): Promise<{ tenantId: string; secret: string; engineUrls: string[] }> {
    const banner = embeddedBanner(baton, logins, { url: config.databaseUrl, sqlite: true });
    expect(banner).toContain(`BATON_TENANT=demo BATON_EXECUTOR_SECRET=${baton.demoTenant.executorSecret} BATON_ENGINE_URLS=${baton.url}`);
    const [, tenantId, secret, engineUrls] = /BATON_TENANT=(\S+) BATON_EXECUTOR_SECRET=(\S+) BATON_ENGINE_URLS=(\S+)/.exec(banner)!;
    return { tenantId, secret, engineUrls: engineUrls.split(',') };
  }

  it('seeds the demo, runs its tasks, refuses a second engine, and keeps the data across a restart', async () => {
    const first = await startEmbedded(config, logins);
    let taskNames: string[];
    try {
      expect(first.seeded).toBe(true);
      const health = await request(first.url).get('/api/health').expect(200);
      expect(health.body).toMatchObject({ status: 'ok', db: 'up' });
      const login = await request(first.url).post('/api/auth/login').send(logins.tenant).expect(200);
      const tasks = await request(first.url).get('/api/tasks').set('authorization', `Bearer ${login.body.token}`).expect(200);
      taskNames = tasks.body.items.map((t: { name: string }) => t.name).sort();
      expect(taskNames).toEqual(['build-report', 'every-10-seconds', 'fails-when-run', 'publish-report', 'reindex-in-4-shards', 'sleep-2s-every-30s']);
      const edges = await request(first.url).get('/api/dependencies').set('authorization', `Bearer ${login.body.token}`).expect(200);
      expect(edges.body).toHaveLength(1);
      await request(first.url).get('/api/docs-json').expect(200);

      // The engine and the demo executor run the demo tasks: the fixed-rate task fires at once.
      const auth = { authorization: `Bearer ${login.body.token}` };
      await vi.waitFor(
        async () => {
          const succeeded = (await request(first.url).get('/api/runs?state=SUCCEEDED').set(auth).expect(200)).body.items as unknown[];
          expect(succeeded.length).toBeGreaterThan(0);
        },
        { timeout: 30_000, interval: 250 },
      );

      // The banner's line is all a local executor needs: one built on the SDK registers with it.
      const env = await executorEnvOfBanner(first);
      const local = createExecutorServer({ ...env, app: 'from-the-banner', handlers: [defineHandler('hello', () => 'hi')], host: '127.0.0.1', port: 0, spoolFile: false });
      await local.start();
      try {
        await vi.waitFor(
          async () => {
            const executors = (await request(first.url).get('/api/executors?app=from-the-banner').set(auth).expect(200)).body as unknown[];
            expect(executors).toMatchObject([{ app: 'from-the-banner', state: 'UP', secret: 'CURRENT' }]);
          },
          { timeout: 30_000, interval: 200 },
        );
      } finally {
        await local.stop();
      }

      // One engine only on SQLite: a second process on the same file is refused.
      await expect(startEmbedded(config, logins)).rejects.toThrow(EngineAlreadyRunningError);
    } finally {
      await first.close();
    }
    // A clean stop (issue 24): the demo executor's last heartbeat marked it stopped — DOWN, no alarm.
    const { openDatabase } = await import('@baton/persistence');
    const ds = await openDatabase(config.databaseUrl);
    try {
      const demo = await ds.query("SELECT state, stopped_at FROM executors WHERE tenant_id = 'demo' AND app = 'demo'");
      expect(demo).toEqual([expect.objectContaining({ state: 'DOWN', stopped_at: expect.any(Number) })]);
    } finally {
      await ds.destroy();
    }

    const second = await startEmbedded(config, logins);
    try {
      expect(second.seeded).toBe(false);
      // Its restart raised neither EXECUTOR_DOWN nor EXECUTOR_UP: a restart is not an outage. The
      // previous row was stopped (checked above), so no UP row is left for its watchdog to declare
      // DOWN; what the restart itself raises is raised by the time its demo executor is registered.
      const ds2 = second.app.get(DataSource);
      await vi.waitFor(
        async () => expect(await ds2.query("SELECT state FROM executors WHERE tenant_id = 'demo' AND app = 'demo' AND state = 'UP'")).toHaveLength(1),
        { timeout: 30_000, interval: 100 },
      );
      const executorAlarms = await second.app.get(DataSource).query("SELECT type FROM alarms WHERE type IN ('EXECUTOR_DOWN', 'EXECUTOR_UP')");
      expect(executorAlarms).toEqual([]);
      // The demo tenant exists already: its secret is still printed, read from the database.
      expect((await executorEnvOfBanner(second)).secret).toBe(second.demoTenant.executorSecret);
      const login = await request(second.url).post('/api/auth/login').send(logins.tenant).expect(200);
      const tasks = await request(second.url).get('/api/tasks').set('authorization', `Bearer ${login.body.token}`).expect(200);
      expect(tasks.body.items.map((t: { name: string }) => t.name).sort()).toEqual(taskNames);
    } finally {
      await second.close();
    }
  });
});
