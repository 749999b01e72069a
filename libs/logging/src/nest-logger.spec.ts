import { Writable } from 'node:stream';
import { Logger } from '@nestjs/common';
import { describe, expect, it } from 'vitest';
import { createLogger, type LogLevel } from './create-logger';
import { NestPinoLogger } from './nest-logger';

function capture(level: LogLevel = 'info') {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const logger = createLogger({ process: 'engine', nodeId: 'node-1', level, destination });
  return { logger, lines, nest: new NestPinoLogger(logger) };
}

describe('createLogger', () => {
  it('writes JSON lines with the base fields and the fields of the call', () => {
    const { logger, lines } = capture();
    logger.child({ tenantId: 'acme' }).warn({ runId: 7 }, 'lease lost');
    expect(lines).toEqual([expect.objectContaining({ level: 'warn', msg: 'lease lost', process: 'engine', nodeId: 'node-1', tenantId: 'acme', runId: 7 })]);
    expect(typeof lines[0].time).toBe('string');
  });

  it('drops lines below its level', () => {
    const { logger, lines } = capture('warn');
    logger.info('quiet');
    logger.error('loud');
    expect(lines.map((l) => l.msg)).toEqual(['loud']);
  });
});

describe('NestPinoLogger', () => {
  it('turns the Nest context into a field and a fields object into fields', () => {
    const { nest, lines } = capture();
    nest.warn('abort failed', { tenantId: 'acme', runId: 12 }, 'Dispatcher');
    expect(lines[0]).toMatchObject({ level: 'warn', msg: 'abort failed', context: 'Dispatcher', tenantId: 'acme', runId: 12 });
  });

  it('keeps the stack of an error', () => {
    const { nest, lines } = capture();
    const err = new Error('boom');
    nest.error('dispatch failed', err.stack, 'Dispatcher');
    nest.error(err, 'Watchdog');
    expect(lines[0]).toMatchObject({ level: 'error', msg: 'dispatch failed', context: 'Dispatcher', stack: err.stack });
    expect(lines[1]).toMatchObject({ level: 'error', msg: 'boom', context: 'Watchdog', err: expect.objectContaining({ message: 'boom' }) });
  });

  it("logs Nest's route mappings and module start lines at debug", () => {
    const quiet = capture('info');
    for (const context of ['RoutesResolver', 'RouterExplorer', 'InstanceLoader', 'NestFactory', 'NestApplication']) quiet.nest.log('chatter', context);
    quiet.nest.log('engine node UP', 'EngineLifecycleService');
    expect(quiet.lines.map((l) => l.msg)).toEqual(['engine node UP']);
    const verbose = capture('debug');
    verbose.nest.log('Mapped {/health, GET} route', 'RouterExplorer');
    expect(verbose.lines[0]).toMatchObject({ level: 'debug', context: 'RouterExplorer' });
  });

  it("receives our classes' `new Logger(Context)` calls once Nest uses it", () => {
    const { nest, lines } = capture();
    Logger.overrideLogger(nest);
    try {
      new Logger('OutboxRelay').log('alarm bus back', { tenantId: 'acme' });
    } finally {
      Logger.overrideLogger(true);
    }
    expect(lines[0]).toMatchObject({ level: 'info', msg: 'alarm bus back', context: 'OutboxRelay', tenantId: 'acme' });
  });
});
