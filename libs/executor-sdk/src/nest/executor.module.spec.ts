import 'reflect-metadata';
import { Controller, Get, Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeEngine } from '../../../../test/protocol/fake-engine';
import { defineHandler, ExecutorRuntime } from '../index';
import { ExecutorModule } from './index';

@Controller('hello')
class HostController {
  @Get()
  hello() {
    return { host: 'app' };
  }
}

describe('ExecutorModule (NestJS)', () => {
  let engine: FakeEngine;
  const dirs: string[] = [];
  beforeAll(async () => (engine = await FakeEngine.start()));
  afterAll(async () => {
    await engine.close();
    dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
  });

  async function boot(bodyMode: 'rawBody' | 'default' | 'none'): Promise<{ app: INestApplication; url: string }> {
    const dir = mkdtempSync(join(tmpdir(), 'baton-nest-'));
    dirs.push(dir);
    @Module({
      imports: [
        ExecutorModule.forRoot({
          tenantId: engine.tenantId,
          secret: engine.secret,
          app: `nest-${bodyMode}`,
          engineUrls: [engine.url],
          spoolFile: join(dir, 'spool.jsonl'),
          handlers: [defineHandler<{ who: string }>('greet', (ctx) => `hello ${ctx.params.who}`)],
          callbackRetry: { baseMs: 10, maxMs: 50 },
          shutdownFlushMs: 500,
          logger: false,
        }),
      ],
      controllers: [HostController],
    })
    class HostModule {}
    const app = await NestFactory.create<NestExpressApplication>(HostModule, {
      logger: false,
      ...(bodyMode === 'rawBody' ? { rawBody: true } : bodyMode === 'none' ? { bodyParser: false } : {}),
    });
    await app.listen(0, '127.0.0.1');
    return { app, url: (await app.getUrl()).replace('[::1]', '127.0.0.1') };
  }

  it.each(['rawBody', 'default', 'none'] as const)('serves the protocol inside the host app (body parser: %s)', async (mode) => {
    const { app, url } = await boot(mode);
    try {
      // Registered with the URL the app listens on, once it listens.
      const hb = await engine.waitFor(() => engine.heartbeats.find((h) => h.body.app === `nest-${mode}`), 'a heartbeat');
      expect(hb.body).toMatchObject({ url, handlers: ['greet'], tenantId: 'acme' });
      expect(hb.signature).toEqual({ ok: true });
      const req = engine.request({ handler: 'greet', params: { who: 'nest' } });
      const answer = await engine.dispatch(url, req);
      expect(answer).toMatchObject({ status: 202, body: { accepted: true, runId: req.runId } });
      expect((await engine.finalCallback(req.runId)).body).toMatchObject({ outcome: 'SUCCEEDED', result: 'hello nest' });
      expect((await engine.dispatch(url, engine.request({ handler: 'greet' }), { secret: 'forged' })).status).toBe(401);
      expect((await engine.dispatch(url, engine.request({ handler: 'nope' }))).status).toBe(404);
      expect(await engine.status(url, req.runId)).toMatchObject({ status: 200, body: { attempts: [{ state: 'FINISHED', outcome: 'SUCCEEDED' }] } });
      const abort = await engine.abort(url, { runId: req.runId, attempt: 1, reason: 'CANCELLED' });
      expect(abort).toMatchObject({ status: 404, body: { state: 'FINISHED' } });
      expect(await (await fetch(`${url}/hello`)).json()).toEqual({ host: 'app' }); // the host's own routes are untouched
      expect(app.get(ExecutorRuntime).stats().phase).toBe('running');
    } finally {
      await app.close();
    }
    expect(app.get(ExecutorRuntime).stats().phase).toBe('stopped'); // stopped gracefully with the app
  });
});
