/**
 * @baton/tracing — OpenTelemetry traces of a run's life (docs/OPERATIONS.md, "Tracing"): off
 * unless the OTEL_* variables ask for an OTLP exporter; then one trace per sampled run, its context
 * kept on the run row (`runs.trace_parent`) and sent to the executor as W3C `traceparent`.
 */
export { flushTracing, startTracing, type TracingHandle } from './start-tracing';
export { tracingWanted } from './tracing-wanted';
export { batonTracer, contextOf, startRunSpan, traceFields, traceLogFields, traceparentOf, tracingOn } from './run-trace';
export { forwardedTraceparent, isSampled, startFirstSpan, UNSAMPLED, type FirstSpan } from './run-sampling';
export { parseTraceparent } from './traceparent';
