import { describe, expect, it } from 'vitest';
import { ConfigError, ProcessConfig } from '@baton/config';
import { readEngineConfig } from './engine-config';

describe('readEngineConfig', () => {
  it('gives the documented defaults', () => {
    const config = readEngineConfig({});
    expect(config).toMatchObject({
      databaseUrl: 'sqlite:./data/baton.sqlite',
      groups: ['default'],
      host: '127.0.0.1',
      port: 8090,
      publicUrl: null,
      slots: 64,
      lookAheadMs: 10_000,
      sendAheadMs: 10_000,
      claimBatch: 500,
      maxHeld: 20_000,
      claimIntervalMs: 200,
      wakeFloorMs: 20,
      tenantRequestsInFlight: 4,
      tenantRequestsWaiting: 256,
      tenantRequestRate: 2000,
      tenantRequestBurst: 10_000,
      planIntervalMs: 500,
      planBatch: 200,
      leaseMs: 15_000,
      heartbeatMs: 2000,
      engineDeadAfterMs: 8000,
      executorDeadAfterMs: 10_000,
      executorGraceMs: 30_000,
      watchdogIntervalMs: 500,
      routing: 'LEAST_BUSY',
      dispatchTimeoutMs: 5000,
      taskRatePerSec: 0,
      taskBurst: 1000,
      retryBudgetPercent: 20,
      retryBudgetPerSec: 10,
      synchronousDispatch: false,
      brokerUrl: null,
      alarmTopicPrefix: 'baton.alarms.',
      alarmRelayIntervalMs: 250,
      alarmRelayBatch: 200,
    });
    expect(config.nodeId).toMatch(/^.+-\d+-[0-9a-f]{6}$/);
  });

  it('reads the environment, and overrides win over it', () => {
    const env = { BATON_ENGINE_ID: 'e1', BATON_ENGINE_GROUPS: 'a,b', BATON_ENGINE_SLOTS: '8', BATON_SYNCHRONOUS_DISPATCH: 'true', BATON_ENGINE_URL: 'http://e1:9000' };
    expect(readEngineConfig(env)).toMatchObject({ nodeId: 'e1', groups: ['a', 'b'], slots: 8, synchronousDispatch: true, publicUrl: 'http://e1:9000' });
    expect(readEngineConfig(env, { slots: 2, port: 0 })).toMatchObject({ slots: 2, port: 0 });
  });

  it('fails on a bad variable with its name, value and reason', () => {
    expect(() => readEngineConfig({ BATON_ENGINE_SLOTS: 'abc' })).toThrow(new ConfigError('BATON_ENGINE_SLOTS', 'abc', 'must be an integer ≥ 1'));
    expect(() => readEngineConfig({ BATON_ROUTING: 'RANDOM' })).toThrow(ConfigError);
  });

  it("runs inside the embedded mode on the embedded mode's variables, address and port given", () => {
    const values = ProcessConfig.load('embedded', { BATON_ENGINE_SLOTS: '16' });
    const config = readEngineConfig({}, { databaseUrl: 'sqlite::memory:', host: '0.0.0.0', port: 8080, publicUrl: null }, values);
    expect(config).toMatchObject({ slots: 16, host: '0.0.0.0', port: 8080, publicUrl: null });
  });
});
