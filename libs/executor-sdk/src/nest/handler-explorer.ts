import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper';
import type { AnyTaskHandler, HandlerContext } from '../handler';
import { ExecutorRuntime } from '../runtime';
import { BATON_HANDLER_METADATA, type HandlerSpec } from './baton-handler.decorator';
import { DuplicateHandlerError } from './duplicate-handler-error';
import { EXECUTOR_OPTIONS, type ExecutorModuleOptions } from './executor-options';

interface Found {
  handler: AnyTaskHandler;
  /** Where it was declared, for errors: `InvoiceJobs.sendInvoices() in InvoicesModule`. */
  place: string;
}

type Instance = Record<string, unknown>;

/**
 * Finds the @BatonHandler methods and classes among the app's providers once every provider is
 * built (onModuleInit, before the runtime starts at bootstrap), binds them to their instances
 * and adds them to the runtime after the module's `handlers`. A name used twice stops the app
 * with a DuplicateHandlerError naming both places.
 */
@Injectable()
export class HandlerExplorer implements OnModuleInit {
  constructor(
    @Inject(DiscoveryService) private readonly discovery: DiscoveryService,
    @Inject(MetadataScanner) private readonly scanner: MetadataScanner,
    @Inject(Reflector) private readonly reflector: Reflector,
    @Inject(ExecutorRuntime) private readonly runtime: ExecutorRuntime,
    @Inject(EXECUTOR_OPTIONS) private readonly options: ExecutorModuleOptions,
  ) {}

  onModuleInit(): void {
    const places = new Map<string, string>();
    (this.options.handlers ?? []).forEach((h, i) => places.set(h.name, `ExecutorModule handlers[${i}]`));
    const found: AnyTaskHandler[] = [];
    for (const { handler, place } of this.providers().flatMap((wrapper) => this.handlersOf(wrapper))) {
      const other = places.get(handler.name);
      if (other !== undefined) throw new DuplicateHandlerError(handler.name, [other, place]);
      places.set(handler.name, place);
      found.push(handler);
    }
    this.runtime.addHandlers(found);
  }

  private providers(): InstanceWrapper[] {
    return this.discovery.getProviders().filter((w) => w.instance !== null && typeof w.instance === 'object');
  }

  private handlersOf(wrapper: InstanceWrapper): Found[] {
    const instance = wrapper.instance as Instance;
    const prototype = Object.getPrototypeOf(instance) as Instance | null;
    if (!prototype || prototype === Object.prototype) return [];
    const className = (instance.constructor as { name?: string } | undefined)?.name || String(wrapper.name);
    const where = wrapper.host ? ` in ${wrapper.host.name}` : '';
    const found: Found[] = [];
    const onClass = this.specOn(instance.constructor);
    if (onClass !== undefined) {
      const place = `class ${className}${where}`;
      if (typeof instance.run !== 'function') throw new Error(`@BatonHandler('${onClass.name}') on ${place}: the class needs a run(ctx) method`);
      found.push({ handler: bind(onClass, instance, 'run'), place });
    }
    for (const method of this.scanner.getAllMethodNames(prototype)) {
      const spec = this.specOn(prototype[method]);
      if (spec !== undefined) found.push({ handler: bind(spec, instance, method), place: `${className}.${method}()${where}` });
    }
    if (found.length && !wrapper.isDependencyTreeStatic()) {
      throw new Error(`@BatonHandler on ${found[0].place}: the provider is request-scoped or transient; a handler needs a singleton provider (the default scope)`);
    }
    return found;
  }

  /** The @BatonHandler on a class or method, if any. */
  private specOn(target: unknown): HandlerSpec | undefined {
    // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
    return typeof target === 'function' ? (this.reflector.get(BATON_HANDLER_METADATA, target as Function) as HandlerSpec | undefined) : undefined;
  }
}

/** A handler that calls `instance[method](ctx)` (so `this` is the provider, with its injected services). */
function bind(spec: HandlerSpec, instance: Instance, method: string): AnyTaskHandler {
  const run = (ctx: HandlerContext) => (instance[method] as (ctx: HandlerContext) => unknown).call(instance, ctx);
  return spec.paramsSchema === undefined ? { name: spec.name, run } : { name: spec.name, run, paramsSchema: spec.paramsSchema };
}
