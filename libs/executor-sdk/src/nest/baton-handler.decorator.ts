import { SetMetadata } from '@nestjs/common';
import { checkParamsSchema, type HandlerOptions } from '../handler';

/** Metadata key of @BatonHandler: the handler's name and options (HandlerSpec), on a method or on a class. */
export const BATON_HANDLER_METADATA = 'baton:handler';

/**
 * Makes a provider's method — or a provider class with a `run(ctx)` method — the handler
 * `name` of the ExecutorModule's executor. The module finds it when the app starts and calls it
 * on the provider's instance, so the handler uses the services injected there. The provider must
 * be a singleton (the default scope) in a module of the app.
 *
 *     @Injectable()
 *     export class InvoiceJobs {
 *       constructor(private readonly invoices: InvoiceService) {}
 *
 *       @BatonHandler('send-invoices')
 *       async sendInvoices(ctx: HandlerContext<{ month: string }>) {
 *         return { sent: await this.invoices.send(ctx.params.month, ctx.signal) };
 *       }
 *     }
 *
 *     @BatonHandler('purge-cache', { paramsSchema: { type: 'object', properties: { prefix: { type: 'string' } } } })
 *     @Injectable()
 *     export class PurgeCache {
 *       run(ctx: HandlerContext) { … }
 *     }
 */
export function BatonHandler(name: string, options: HandlerOptions = {}): ClassDecorator & MethodDecorator {
  if (typeof name !== 'string' || !name.trim()) throw new Error('@BatonHandler(name): name must be a non-empty string');
  checkParamsSchema(`@BatonHandler('${name}')`, options.paramsSchema);
  const spec: HandlerSpec = { name, ...options };
  return SetMetadata(BATON_HANDLER_METADATA, spec);
}

/** What @BatonHandler records. */
export interface HandlerSpec extends HandlerOptions {
  name: string;
}
