import { trace, type Context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';

/**
 * The context manager of Baton's tracer provider (startTracing): the SDK's AsyncLocalStorage one,
 * entered only while a span's work is in flight. On Node before 22.7, an AsyncLocalStorage once
 * entered keeps Node's async hooks on for the life of the process, a cost on every promise and
 * every asynchronous step of every run, sampled or not (at 1 % sampling, most of tracing's cost).
 * Here they are on only from a `context.with` whose context holds a span (a sampled handler's, on
 * an executor, so that business code's spans nest under it and its log lines name it) until the
 * work it returned settles (or it returns, when that is not a promise); then turned off again.
 *
 * A `context.with` of a context without a span, with none entered, calls its function directly:
 * the exporter's own (OpenTelemetry's suppressTracing, which only instrumentations read: Baton's
 * processes install none, and the engine and console parent their spans by hand) and so nothing
 * on the engine or console enters it. What a settled handler left behind (a timer, a detached
 * promise) runs without its context once the hooks are off.
 */
export class RunContextManager extends AsyncLocalStorageContextManager {
  /** `with` calls whose work has not settled yet; the hooks are on while this is above 0. */
  private entered = 0;

  override with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(context: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
    if (this.entered === 0 && trace.getSpan(context) === undefined) return fn.apply(thisArg, args);
    this.entered++;
    let result: ReturnType<F>;
    try {
      result = super.with(context, fn, thisArg, ...args);
    } catch (error) {
      this.leave();
      throw error;
    }
    // Watched on a branch of its own: the caller still owns (and handles) the result's rejection.
    if (isPromiseLike(result)) void Promise.resolve(result).then(this.leave, this.leave);
    else this.leave();
    return result;
  }

  private readonly leave = (): void => {
    if (--this.entered === 0) this.disable();
  };
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}
