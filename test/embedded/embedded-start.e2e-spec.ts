import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';
import { demoLogins } from '../../apps/embedded/src/demo-seed';
import { startEmbedded } from '../../apps/embedded/src/start-embedded';
import { EngineAlreadyRunningError } from '../../apps/engine/src';

describe('embedded mode (npm start)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'baton-embedded-'));
  const config = { databaseUrl: `sqlite:${join(dir, 'baton.sqlite')}`, host: '127.0.0.1', port: 0 };
  const logins = demoLogins({});
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

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
      expect(taskNames).toEqual(['build-report', 'every-10-seconds', 'flaky-every-minute', 'publish-report', 'sleep-2s-every-30s']);
      const edges = await request(first.url).get('/api/dependencies').set('authorization', `Bearer ${login.body.token}`).expect(200);
      expect(edges.body).toHaveLength(1);
      await request(first.url).get('/api/docs-json').expect(200);

      // The engine and the demo executor run the demo tasks: the fixed-rate task fires at once.
      const auth = { authorization: `Bearer ${login.body.token}` };
      const deadline = Date.now() + 20_000;
      let succeeded: Array<{ taskName: string }> = [];
      while (succeeded.length === 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 250));
        succeeded = (await request(first.url).get('/api/runs?state=SUCCEEDED').set(auth).expect(200)).body.items;
      }
      expect(succeeded.length).toBeGreaterThan(0);

      // One engine only on SQLite: a second process on the same file is refused.
      await expect(startEmbedded(config, logins)).rejects.toThrow(EngineAlreadyRunningError);
    } finally {
      await first.close();
    }

    const second = await startEmbedded(config, logins);
    try {
      expect(second.seeded).toBe(false);
      const login = await request(second.url).post('/api/auth/login').send(logins.tenant).expect(200);
      const tasks = await request(second.url).get('/api/tasks').set('authorization', `Bearer ${login.body.token}`).expect(200);
      expect(tasks.body.items.map((t: { name: string }) => t.name).sort()).toEqual(taskNames);
    } finally {
      await second.close();
    }
  });
});
