import { describe, expect, it } from 'vitest';
import { ConfigError } from './config-error';
import { ProcessConfig } from './process-config';
import { BATON_PROCESSES } from './config-variable';
import { CONFIG_VARIABLES } from './schema';

const message = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('did not throw');
};

describe('ProcessConfig', () => {
  it('gives the defaults of the schema when nothing is set', () => {
    const engine = ProcessConfig.load('engine', {});
    expect(engine.integer('BATON_ENGINE_SLOTS')).toBe(64);
    expect(engine.integer('BATON_ENGINE_PORT')).toBe(8090);
    expect(engine.list('BATON_ENGINE_GROUPS')).toEqual(['default']);
    expect(engine.boolean('BATON_SYNCHRONOUS_DISPATCH')).toBe(false);
    expect(engine.optionalString('BATON_BROKER_URL')).toBeUndefined();
    expect(engine.string('BATON_DB_URL')).toBe('sqlite:./data/baton.sqlite');
  });

  it('parses what is set, by type', () => {
    const engine = ProcessConfig.load('engine', {
      BATON_ENGINE_SLOTS: ' 8 ',
      BATON_ENGINE_GROUPS: 'a, b,,c',
      BATON_SYNCHRONOUS_DISPATCH: '1',
      BATON_ROUTING: 'FAILOVER',
      BATON_BROKER_URL: 'stomp://127.0.0.1:61613',
    });
    expect(engine.integer('BATON_ENGINE_SLOTS')).toBe(8);
    expect(engine.list('BATON_ENGINE_GROUPS')).toEqual(['a', 'b', 'c']);
    expect(engine.boolean('BATON_SYNCHRONOUS_DISPATCH')).toBe(true);
    expect(engine.string('BATON_ROUTING')).toBe('FAILOVER');
  });

  it('names the variable, the value and the reason of a bad value', () => {
    expect(message(() => ProcessConfig.load('engine', { BATON_ENGINE_SLOTS: 'abc' }))).toBe('BATON_ENGINE_SLOTS="abc": must be an integer ≥ 1');
    expect(message(() => ProcessConfig.load('engine', { BATON_ENGINE_SLOTS: '0' }))).toBe('BATON_ENGINE_SLOTS="0": must be an integer ≥ 1');
    expect(message(() => ProcessConfig.load('engine', { BATON_LEASE_MS: '1.5' }))).toBe('BATON_LEASE_MS="1.5": must be an integer ≥ 1 (milliseconds)');
    expect(message(() => ProcessConfig.load('engine', { BATON_ENGINE_PORT: '70000' }))).toBe('BATON_ENGINE_PORT="70000": must be a port number, 0–65535 (0: any free port)');
    expect(message(() => ProcessConfig.load('engine', { BATON_ROUTING: 'RANDOM' }))).toBe('BATON_ROUTING="RANDOM": must be one of ROUND_ROBIN, LEAST_BUSY, CONSISTENT_HASH, FAILOVER');
    expect(message(() => ProcessConfig.load('engine', { BATON_SYNCHRONOUS_DISPATCH: 'maybe' }))).toMatch(/^BATON_SYNCHRONOUS_DISPATCH="maybe": must be true or false/);
    expect(message(() => ProcessConfig.load('engine', { BATON_ENGINE_GROUPS: ' , ' }))).toBe('BATON_ENGINE_GROUPS=" , ": must name at least one engine group');
    expect(message(() => ProcessConfig.load('engine', { BATON_DB_URL: 'postgres://x/y' }))).toBe('BATON_DB_URL="postgres://x/y": must be mysql://user:pass@host:3306/db or sqlite:path');
    expect(message(() => ProcessConfig.load('engine', { BATON_ALARM_TOPIC_PREFIX: 'no-dot' }))).toMatch(/^BATON_ALARM_TOPIC_PREFIX="no-dot": .*dot/);
    expect(message(() => ProcessConfig.load('engine', { BATON_BROKER_URL: 'http://x' }))).toMatch(/^BATON_BROKER_URL="http:\/\/x": /);
    expect(message(() => ProcessConfig.load('console', { BATON_LOG_LEVEL: 'loud', BATON_DB_URL: 'sqlite::memory:' }))).toMatch(/^BATON_LOG_LEVEL="loud": must be one of fatal, error/);
  });

  it('reads a variable per process: required by the console, defaulted by the engine', () => {
    expect(message(() => ProcessConfig.load('console', {}))).toMatch(/^BATON_DB_URL is not set: required/);
    expect(ProcessConfig.load('console', { BATON_DB_URL: 'sqlite::memory:' }).integer('BATON_CONSOLE_PORT')).toBe(8080);
    expect(ProcessConfig.load('embedded', {}).string('BATON_OPERATOR_PASSWORD')).toBe('operator-password');
    expect(ProcessConfig.load('console', { BATON_DB_URL: 'sqlite::memory:' }).optionalString('BATON_OPERATOR_PASSWORD')).toBeUndefined();
  });

  it('refuses to read a variable its process does not declare, or by the wrong type', () => {
    const engine = ProcessConfig.load('engine', {});
    expect(() => engine.integer('BATON_CONSOLE_PORT')).toThrow(/not a variable of the engine process/);
    expect(() => engine.string('BATON_ENGINE_SLOTS')).toThrow(/of type integer/);
  });

  it('warns about unknown BATON_* variables, with the nearest known name', () => {
    const engine = ProcessConfig.load('engine', { BATON_ENGINE_SLOT: '4', BATON_WHATEVER_ELSE_ENTIRELY: 'x', BATON_TEST_MYSQL_URL: 'mysql://x/', PATH: '/bin' });
    expect(engine.warnings).toEqual([
      'unknown variable BATON_ENGINE_SLOT (did you mean BATON_ENGINE_SLOTS?): ignored',
      'unknown variable BATON_WHATEVER_ELSE_ENTIRELY: ignored',
    ]);
  });

  it('lists each variable at most once per process', () => {
    for (const process of BATON_PROCESSES) {
      const names = CONFIG_VARIABLES.filter((v) => v.processes.includes(process)).map((v) => v.name);
      expect(names.filter((n, i) => names.indexOf(n) !== i), process).toEqual([]);
    }
  });
});
