import { describe, expect, it } from 'vitest';
import { tracingWanted } from './tracing-wanted';

describe('tracingWanted: the OTEL_* variables that turn tracing on', () => {
  it('is off with none of them', () => {
    expect(tracingWanted({})).toBe(false);
    expect(tracingWanted({ OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on' })).toBe(false);
  });

  it('is on with an OTLP endpoint, or the otlp exporter named', () => {
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(tracingWanted({ OTEL_TRACES_EXPORTER: 'console, OTLP' })).toBe(true);
  });

  it('stays off when the exporter is none or another, or the SDK is disabled, whatever the endpoint', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(tracingWanted({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
    expect(tracingWanted({ ...endpoint, OTEL_TRACES_EXPORTER: 'zipkin' })).toBe(false);
    expect(tracingWanted({ ...endpoint, OTEL_SDK_DISABLED: 'TRUE' })).toBe(false);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' })).toBe(false);
  });
});
