/**
 * Whether `env` asks for traces, by the standard OpenTelemetry variables: OTEL_TRACES_EXPORTER
 * naming `otlp`, or an OTLP endpoint (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
 * with no exporter named. OTEL_SDK_DISABLED=true and OTEL_TRACES_EXPORTER=none win. Default off:
 * then no SDK is loaded and no span is made (the hot path asks `tracingOn()`, a boolean).
 */
export function tracingWanted(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '').split(',').map((e) => e.trim().toLowerCase()).filter(Boolean);
  if (exporters.length > 0) return exporters.includes('otlp');
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim());
}
