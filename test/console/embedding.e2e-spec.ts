/**
 * How an embedding app (apps/embedded) mounts the console beside its own controllers: the
 * console's guard, prefix and OpenAPI document stay on the console's routes.
 */
import { Body, Controller, Get, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseModule } from '@baton/persistence';
import { configureConsoleApp, ConsoleModule, ManualClock } from '../../apps/console/src';
import { TEST_DATABASES, useTestDatabase } from '../support/databases';
import { cronTask, seedTenant, startConsole, T0, type ConsoleTestApp } from './console-test-kit';

@Controller('engine')
class EngineCallbackController {
  @Get('ping')
  ping() {
    return { pong: true };
  }

  @Post('callback')
  callback(@Body() body: Record<string, unknown>) {
    return { got: body };
  }
}

@Module({ controllers: [EngineCallbackController] })
class FakeEngineModule {}

describe('console mounted in an embedding app', () => {
  const db = useTestDatabase('sqlite');
  let app: Awaited<ReturnType<typeof NestFactory.create>>;

  beforeAll(async () => {
    @Module({
      imports: [
        DatabaseModule.forRoot({ dataSource: db.dataSource }),
        ConsoleModule.forRoot({ clock: new ManualClock(T0), passwordHashRounds: 4 }),
        FakeEngineModule,
      ],
    })
    class EmbeddedAppModule {}
    app = await NestFactory.create(EmbeddedAppModule, { bodyParser: false, logger: ['error'] });
    configureConsoleApp(app);
    await app.init();
  });
  afterAll(() => app?.close());

  it("leaves the host's own routes alone (no /api prefix, no console auth)", async () => {
    const res = await request(app.getHttpServer()).get('/engine/ping');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ pong: true });
    const post = await request(app.getHttpServer()).post('/engine/callback').send({ runId: 1, anything: 'goes' });
    expect(post.status).toBe(201);
    expect(post.body).toEqual({ got: { runId: 1, anything: 'goes' } });
  });

  it('still guards the console routes and documents only them', async () => {
    expect((await request(app.getHttpServer()).get('/api/tasks')).status).toBe(401);
    const doc = await request(app.getHttpServer()).get('/api/docs-json');
    expect(Object.keys(doc.body.paths).every((p) => p.startsWith('/api/'))).toBe(true);
  });
});

describe.each(TEST_DATABASES)('console under concurrent writes on %s', (kind) => {
  const db = useTestDatabase(kind);
  let t: ConsoleTestApp;
  beforeAll(async () => {
    t = await startConsole(db.dataSource);
  });
  afterAll(() => t?.close());

  it('creates a task name once when five requests race for it (others 409), and writes interleave safely', async () => {
    const a = await seedTenant(t, db.dataSource, 'acme');
    const results = await Promise.all(Array.from({ length: 5 }, () => t.http().post('/api/tasks').set(a.admin).send(cronTask('racy'))));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
    const created = results.find((r) => r.status === 201)!.body.id as number;
    const runs = await Promise.all(Array.from({ length: 10 }, () => t.http().post(`/api/tasks/${created}/trigger`).set(a.admin)));
    expect(runs.every((r) => r.status === 201)).toBe(true);
    expect(new Set(runs.map((r) => r.body.id)).size).toBe(10);
    const list = await t.http().get(`/api/runs?taskId=${created}`).set(a.admin);
    expect(list.body.items).toHaveLength(10);
  });
});
