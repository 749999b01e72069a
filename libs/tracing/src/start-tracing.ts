import { tracingWanted } from './tracing-wanted';
import { DecidedTraceIds, useRunSampler } from './run-sampling';
import { markTracingOn } from './run-trace';
// Not the SDK: a small class over Node's AsyncLocalStorage (@opentelemetry/context-async-hooks), made only here.
import { RunContextManager } from './run-context-manager';

/** What startTracing gives back: `on` says whether spans are exported; `shutdown` flushes them. */
export interface TracingHandle {
  on: boolean;
  /** Exports the spans still buffered and stops the exporter. */
  shutdown(): Promise<void>;
}

let started: TracingHandle | undefined;
let flush: () => Promise<void> = async () => undefined;

/** Sends the spans buffered so far (a graceful stop calls it: the process may end before the exporter's next turn). */
export function flushTracing(): Promise<void> {
  return flush();
}

/**
 * Starts exporting traces over OTLP/HTTP (JSON) when `env` asks for it (tracingWanted), else does
 * nothing: the SDK packages are required only here, so a process without tracing never loads them.
 * Once per process (the embedded mode runs console, engine and executor in one): a second call
 * returns the first handle. `defaultServiceName` is used unless OTEL_SERVICE_NAME (or
 * OTEL_RESOURCE_ATTRIBUTES' service.name) names the service. The sampler is the SDK's, from
 * OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG (default parentbased_always_on), read from
 * process.env as the exporter reads its variables; it also decides each run's sampling before
 * the run's first span (startFirstSpan). The endpoint,
 * headers and timeouts the exporter's (OTEL_EXPORTER_OTLP_*); the batching the BatchSpanProcessor's
 * (OTEL_BSP_*). The context manager is RunContextManager: the active context is kept only while
 * a span's work is in flight (a sampled handler's on an executor).
 */
export function startTracing(defaultServiceName: string, env: NodeJS.ProcessEnv = process.env): TracingHandle {
  if (started) return started;
  if (!tracingWanted(env)) return (started = { on: false, shutdown: async () => undefined });
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded only when tracing is on */
  const { NodeTracerProvider, BatchSpanProcessor, RandomIdGenerator } = require('@opentelemetry/sdk-trace-node') as typeof import('@opentelemetry/sdk-trace-node');
  // The SDK's own reading of OTEL_TRACES_SAMPLER(_ARG) (not in its index; the version is pinned).
  const { buildSamplerFromEnv } = require('@opentelemetry/sdk-trace-base/build/src/config') as typeof import('@opentelemetry/sdk-trace-base/build/src/config');
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
  const { resourceFromAttributes, envDetector, detectResources } = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const resource = resourceFromAttributes({ 'service.name': defaultServiceName }).merge(detectResources({ detectors: [envDetector] }));
  // One sampler for the provider and for the decision taken before a run's first span (startFirstSpan).
  const sampler = buildSamplerFromEnv();
  const idGenerator = new DecidedTraceIds(new RandomIdGenerator());
  const provider = new NodeTracerProvider({ resource, sampler, idGenerator, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
  // Node's async hooks only while a sampled span's work is in flight, not for every run (RunContextManager).
  provider.register({ contextManager: new RunContextManager() });
  useRunSampler(sampler, idGenerator);
  markTracingOn();
  flush = () => provider.forceFlush().catch(() => undefined);
  // The spans still buffered leave when the process ends on its own (after a graceful stop).
  process.once('beforeExit', () => void provider.shutdown());
  started = { on: true, shutdown: () => provider.shutdown() };
  return started;
}
