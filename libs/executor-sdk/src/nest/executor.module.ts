import {
  Controller,
  Get,
  Inject,
  Injectable,
  Module,
  Param,
  Post,
  Req,
  Res,
  type BeforeApplicationShutdown,
  type DynamicModule,
  type OnApplicationBootstrap,
  type Provider,
} from '@nestjs/common';
import { DiscoveryModule, HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Subscription } from 'rxjs';
import { ExecutorRuntime } from '../runtime';
import { EXECUTOR_OPTIONS, type ExecutorModuleAsyncOptions, type ExecutorModuleOptions } from './executor-options';
import { HandlerExplorer } from './handler-explorer';

type NestRequest = IncomingMessage & { rawBody?: Buffer; body?: unknown };
type NestResponse = ServerResponse & { raw?: ServerResponse };

/**
 * The raw body of a request the host app may already have parsed: `req.rawBody` (app created
 * with `{ rawBody: true }` — recommended), a string/Buffer body, or, when a JSON parser consumed
 * the stream, the parsed body re-serialised (exact for bodies written by JSON.stringify, as
 * Baton's engine does). `undefined`: the stream is unread, the runtime reads it.
 */
function rawBodyOf(req: NestRequest): string | Buffer | undefined {
  if (Buffer.isBuffer(req.rawBody)) return req.rawBody;
  if (typeof req.body === 'string' || Buffer.isBuffer(req.body)) return req.body;
  if (!req.readableEnded) return undefined;
  return req.body === undefined ? '' : JSON.stringify(req.body);
}

/** The executor protocol's routes inside the host Nest app (same paths as the plain server). */
@Controller('baton')
export class ExecutorController {
  constructor(@Inject(ExecutorRuntime) private readonly runtime: ExecutorRuntime) {}

  @Post('runs')
  async dispatch(@Req() req: NestRequest, @Res() res: NestResponse): Promise<void> {
    await this.runtime.serveNode(req, res.raw ?? res, { path: '/baton/runs', body: rawBodyOf(req) });
  }

  @Post('runs/:id/abort')
  async abort(@Param('id') id: string, @Req() req: NestRequest, @Res() res: NestResponse): Promise<void> {
    await this.runtime.serveNode(req, res.raw ?? res, { path: `/baton/runs/${id}/abort`, body: rawBodyOf(req) });
  }

  @Get('runs/:id')
  async status(@Param('id') id: string, @Req() req: NestRequest, @Res() res: NestResponse): Promise<void> {
    await this.runtime.serveNode(req, res.raw ?? res, { path: `/baton/runs/${id}`, body: rawBodyOf(req) ?? '' });
  }

  @Get('health')
  async health(@Req() req: NestRequest, @Res() res: NestResponse): Promise<void> {
    await this.runtime.serveNode(req, res.raw ?? res, { path: '/baton/health', body: '' });
  }
}

/**
 * Starts the runtime with the app (spool replay at bootstrap; heartbeats at bootstrap when
 * `publicUrl` is set, else once the app listens, with the URL it listens on) and stops it
 * gracefully before the app shuts down (`app.close()`, or a signal with `enableShutdownHooks()`).
 */
@Injectable()
export class ExecutorLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private listening?: Subscription;

  constructor(
    @Inject(ExecutorRuntime) private readonly runtime: ExecutorRuntime,
    @Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.runtime.start();
    if (this.runtime.options.publicUrl) return;
    const fromServer = () => {
      const server = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
      const address = server?.address() as AddressInfo | string | null | undefined;
      if (!address || typeof address === 'string') return;
      const host = address.address === '::' || address.address === '0.0.0.0' ? '127.0.0.1' : address.address;
      this.runtime.setPublicUrl(`http://${host.includes(':') ? `[${host}]` : host}:${address.port}`);
    };
    this.listening = this.adapterHost.listen$?.subscribe(() => fromServer());
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.listening?.unsubscribe();
    await this.runtime.stop();
  }
}

/**
 * Mounts an executor in a Nest app: `POST /baton/runs`, `POST /baton/runs/:id/abort`,
 * `GET /baton/runs/:id`, `GET /baton/health`, served by one ExecutorRuntime (injectable, e.g.
 * for `runtime.events`). Its handlers: the `handlers` option plus every @BatonHandler method or
 * class among the app's providers (found at module init, see HandlerExplorer). Create the app
 * with `{ rawBody: true }` so signatures are checked over the exact bytes. With a global prefix,
 * include it in `publicUrl` (the signature covers the protocol path, not the prefix).
 */
@Module({})
export class ExecutorModule {
  static forRoot(options: ExecutorModuleOptions): DynamicModule {
    return ExecutorModule.with({ provide: EXECUTOR_OPTIONS, useValue: options }, []);
  }

  static forRootAsync(options: ExecutorModuleAsyncOptions): DynamicModule {
    return ExecutorModule.with({ provide: EXECUTOR_OPTIONS, useFactory: options.useFactory, inject: options.inject ?? [] }, options.imports ?? []);
  }

  private static with(optionsProvider: Provider, imports: NonNullable<ExecutorModuleAsyncOptions['imports']>): DynamicModule {
    return {
      module: ExecutorModule,
      imports: [DiscoveryModule, ...imports],
      controllers: [ExecutorController],
      providers: [
        optionsProvider,
        { provide: ExecutorRuntime, useFactory: (o: ExecutorModuleOptions) => new ExecutorRuntime({ ...o, handlers: o.handlers ?? [] }), inject: [EXECUTOR_OPTIONS] },
        HandlerExplorer,
        ExecutorLifecycle,
      ],
      exports: [ExecutorRuntime],
    };
  }
}
