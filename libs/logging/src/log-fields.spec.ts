import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { context, trace } from '@opentelemetry/api';
import { batonTracer, startTracing, traceFields } from '@baton/tracing';
import { REDACTED } from '@baton/domain';
import { createLogger } from './create-logger';
import { NestPinoLogger } from './nest-logger';

/** A logger whose lines are kept, parsed. */
function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: createLogger({ process: 'engine', destination }), lines };
}

describe('log lines and traces joined', () => {
  // Tracing on for this file's process; its spans are never ended, so nothing is exported.
  const tracing = startTracing('logging-test', { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
  afterAll(() => tracing.shutdown());

  it("gives a line written inside a run's span its trace_id and span_id, and a line outside none", () => {
    expect(tracing.on).toBe(true);
    const { logger, lines } = capture();
    const span = batonTracer().startSpan('baton.run.dispatch');
    context.with(trace.setSpan(context.active(), span), () => logger.warn({ runId: 7 }, 'executor refused'));
    logger.info('outside');
    const { traceId, spanId } = span.spanContext();
    expect(lines[0]).toMatchObject({ msg: 'executor refused', runId: 7, trace_id: traceId, span_id: spanId });
    expect(lines[1]).not.toHaveProperty('trace_id');
  });

  it("names a run's stored trace context in a line about the run (traceFields), nothing for an untraced one", () => {
    const { logger, lines } = capture();
    logger.warn({ runId: 7, ...traceFields('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01') }, 'dispatch failed');
    logger.warn({ runId: 8, ...traceFields(null) }, 'dispatch failed');
    expect(lines[0]).toMatchObject({ runId: 7, trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', span_id: '00f067aa0ba902b7' });
    expect(lines[1]).not.toHaveProperty('trace_id');
  });

  it('takes nothing from a value that is not a W3C traceparent (a callback says it)', () => {
    for (const said of ['00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7', '00-XYZ-00f067aa0ba902b7-01', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\nforged', 42, {}, undefined]) {
      expect(traceFields(said), String(said)).toEqual({});
    }
  });
});

describe('secret-named fields of a log line', () => {
  it('are written redacted at any depth, by the audit log\'s rule; the other fields and an error as they are', () => {
    const { logger, lines } = capture();
    logger.warn({ tenantId: 'acme', runId: 7, params: { region: 'eu', apiToken: 'tok-1' }, headers: { authorization: 'Bearer s3cr3t', accept: '*/*' }, password: 'hunter2', err: new Error('boom') }, 'refused');
    expect(lines[0]).toMatchObject({ msg: 'refused', tenantId: 'acme', runId: 7, params: { region: 'eu', apiToken: REDACTED }, headers: { authorization: REDACTED, accept: '*/*' }, password: REDACTED, err: { message: 'boom' } });
    expect(JSON.stringify(lines[0])).not.toMatch(/tok-1|s3cr3t|hunter2/);
  });

  it("as well through Nest's Logger (a plain object among the arguments)", () => {
    const { logger, lines } = capture();
    new NestPinoLogger(logger).warn('executor refused', { tenantId: 'acme', secret: 'whsec_1' }, 'Context');
    expect(lines[0]).toMatchObject({ msg: 'executor refused', tenantId: 'acme', secret: REDACTED, context: 'Context' });
  });
});
