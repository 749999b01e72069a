import 'reflect-metadata';
import { Injectable, Module, Scope, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeEngine } from '../../../../test/protocol/fake-engine';
import { defineHandler, ExecutorRuntime, type AnyTaskHandler, type HandlerContext } from '../index';
import { BatonHandler, DuplicateHandlerError, ExecutorModule } from './index';

@Injectable()
class InvoiceService {
  readonly sentMonths: string[] = [];
  send(month: string): number {
    this.sentMonths.push(month);
    return month.length;
  }
}

const MONTH_SCHEMA = { type: 'object', required: ['month'], properties: { month: { type: 'string', pattern: '^\\d{4}-\\d{2}$' } } };

@Injectable()
class InvoiceJobs {
  constructor(private readonly invoices: InvoiceService) {}

  @BatonHandler('send-invoices', { paramsSchema: MONTH_SCHEMA })
  async sendInvoices(ctx: HandlerContext<{ month: string }>) {
    ctx.log.info('sending %s', ctx.params.month);
    return { sent: this.invoices.send(ctx.params.month) };
  }

  /** Not a handler: undecorated methods stay out. */
  helper(): string {
    return 'no';
  }
}

@BatonHandler('count-invoices')
@Injectable()
class CountInvoices {
  constructor(private readonly invoices: InvoiceService) {}

  run() {
    return { months: this.invoices.sentMonths };
  }
}

@Module({ providers: [InvoiceService, InvoiceJobs, CountInvoices], exports: [InvoiceService] })
class InvoicesModule {}

describe('ExecutorModule: handlers discovered on providers (@BatonHandler)', () => {
  let engine: FakeEngine;
  const dirs: string[] = [];
  beforeAll(async () => (engine = await FakeEngine.start()));
  afterAll(async () => {
    await engine.close();
    dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
  });

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  function hostModule(app: string, handlers: AnyTaskHandler[] | undefined, more: any[] = []) {
    const dir = mkdtempSync(join(tmpdir(), 'baton-nest-discovery-'));
    dirs.push(dir);
    @Module({
      imports: [
        InvoicesModule,
        ExecutorModule.forRoot({
          tenantId: engine.tenantId,
          secret: engine.secret,
          app,
          engineUrls: [engine.url],
          spoolFile: join(dir, 'spool.jsonl'),
          ...(handlers ? { handlers } : {}),
          callbackRetry: { baseMs: 10, maxMs: 50 },
          shutdownFlushMs: 500,
          logger: false,
        }),
      ],
      providers: more,
    })
    class HostModule {}
    return HostModule;
  }

  it('runs decorated methods and classes on their provider instances, with the explicit handlers, through the real runtime', async () => {
    const app: INestApplication = await NestFactory.create(hostModule('nest-discovery', [defineHandler('ping', () => 'pong')]), { logger: false, rawBody: true });
    await app.listen(0, '127.0.0.1');
    try {
      const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
      const hb = await engine.waitFor(() => engine.heartbeats.find((h) => h.body.app === 'nest-discovery'), 'a heartbeat');
      expect([...hb.body.handlers].sort()).toEqual(['count-invoices', 'ping', 'send-invoices']);
      expect(hb.body.handlerSchemas).toEqual({ 'send-invoices': MONTH_SCHEMA }); // only the handler that declares one
      const send = engine.request({ handler: 'send-invoices', params: { month: '2026-10' } });
      expect((await engine.dispatch(url, send)).status).toBe(202);
      const cb = (await engine.finalCallback(send.runId)).body;
      expect(cb).toMatchObject({ outcome: 'SUCCEEDED', result: { sent: 7 }, logs: [{ level: 'info', message: 'sending 2026-10' }] });
      expect(app.get(InvoiceService).sentMonths).toEqual(['2026-10']); // the injected singleton did the work
      const count = engine.request({ handler: 'count-invoices' });
      await engine.dispatch(url, count);
      expect((await engine.finalCallback(count.runId)).body).toMatchObject({ outcome: 'SUCCEEDED', result: { months: ['2026-10'] } });
      const ping = engine.request({ handler: 'ping' });
      await engine.dispatch(url, ping);
      expect((await engine.finalCallback(ping.runId)).body).toMatchObject({ outcome: 'SUCCEEDED', result: 'pong' });
      expect((await engine.dispatch(url, engine.request({ handler: 'helper' }))).status).toBe(404);
    } finally {
      await app.close();
    }
  });

  it('works without a handlers option (every handler decorated)', async () => {
    const app = await NestFactory.create(hostModule('nest-discovery-only', undefined), { logger: false });
    await app.init();
    try {
      expect(app.get(ExecutorRuntime).stats().phase).toBe('running');
    } finally {
      await app.close();
    }
  });

  it('a handler name used twice stops the start, naming both places', async () => {
    const explicit = NestFactory.create(hostModule('nest-dup-1', [defineHandler('send-invoices', () => null)]), { logger: false, abortOnError: false });
    const err = await explicit.then((app) => app.init()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DuplicateHandlerError);
    expect((err as DuplicateHandlerError).message).toBe(
      'two executor handlers are named "send-invoices": ExecutorModule handlers[0] and InvoiceJobs.sendInvoices() in InvoicesModule',
    );
    expect((err as DuplicateHandlerError).code).toBe('DUPLICATE_HANDLER');

    @Injectable()
    class OtherJobs {
      @BatonHandler('count-invoices')
      count() {
        return 0;
      }
    }
    const twoProviders = await NestFactory.create(hostModule('nest-dup-2', undefined, [OtherJobs]), { logger: false, abortOnError: false })
      .then((app) => app.init())
      .catch((e: unknown) => e);
    expect((twoProviders as Error).message).toMatch(/two executor handlers are named "count-invoices": (class CountInvoices in InvoicesModule and OtherJobs\.count\(\) in HostModule|OtherJobs\.count\(\) in HostModule and class CountInvoices in InvoicesModule)/);
  });

  it('refuses a decorated request-scoped provider, and a decorated class without run()', async () => {
    @Injectable({ scope: Scope.REQUEST })
    class PerRequest {
      @BatonHandler('per-request')
      go() {
        return 1;
      }
    }
    const scoped = await NestFactory.create(hostModule('nest-scoped', undefined, [PerRequest]), { logger: false, abortOnError: false })
      .then((app) => app.init())
      .catch((e: unknown) => e);
    expect((scoped as Error).message).toMatch(/PerRequest\.go\(\) in HostModule: the provider is request-scoped or transient/);

    @BatonHandler('no-run')
    @Injectable()
    class NoRun {}
    const noRun = await NestFactory.create(hostModule('nest-no-run', undefined, [NoRun]), { logger: false, abortOnError: false })
      .then((app) => app.init())
      .catch((e: unknown) => e);
    expect((noRun as Error).message).toBe("@BatonHandler('no-run') on class NoRun in HostModule: the class needs a run(ctx) method");
    // A params schema that is not a JSON object: refused where it is written, not by every engine at each heartbeat.
    expect(() => BatonHandler('bad-schema', { paramsSchema: ['month'] })).toThrow("@BatonHandler('bad-schema'): paramsSchema must be a JSON schema object");
  });
});
