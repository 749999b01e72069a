import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { InProcessAlarmBus, type AlarmMessage } from '@baton/messaging';
import { FakeEngine } from '../../../test/protocol/fake-engine';
import { ExecutorHarness } from '../../../test/protocol/executor-harness';
import { defineHandler } from './index';

/** ctx.alarm() in direct mode (brokerUrl / alarmBus): to the tenant's topic first, then recorded through the engine. */
describe('executor runtime: direct alarms', () => {
  let engine: FakeEngine;
  const harness = new ExecutorHarness();
  beforeAll(async () => (engine = await FakeEngine.start()));
  afterEach(() => harness.cleanup());
  afterAll(() => engine.close());

  /** The alarms the engine got for a run, interim and final callbacks together. */
  const alarmsOf = (runId: number) => engine.callbacks.filter((c) => c.body.runId === runId).flatMap((c) => c.body.alarms ?? []);
  const raiser = defineHandler('raise', (ctx) => {
    ctx.alarm('CRITICAL', 'ledger mismatch', { account: 7 });
    return 'ok';
  });

  it('publishes the alarm on the tenant topic (baton.alarm/1, source executor), then tells the engine it is published', async () => {
    const bus = new InProcessAlarmBus();
    const heard: AlarmMessage[] = [];
    bus.subscribe({ alarm: (m) => heard.push(m.payload as AlarmMessage) });
    const executor = await harness.start(engine, { handlers: [raiser], alarmBus: bus, progressIntervalMs: 10_000 });
    // Registered first, so the alarm names its executor (the engine's heartbeat ack gives the id).
    const executorId = await engine.waitFor(() => executor.runtime.stats().executorId, 'the executor registered');
    const req = engine.request({ handler: 'raise' });
    await engine.dispatch(executor.url, req);
    await engine.finalCallback(req.runId);
    const alarms = alarmsOf(req.runId);
    expect(alarms).toEqual([{ id: expect.any(String), severity: 'CRITICAL', message: 'ledger mismatch', data: { account: 7 }, at: expect.any(Number), published: true }]);
    const { id, at } = alarms[0];
    expect(heard).toEqual([
      {
        schema: 'baton.alarm/1',
        id,
        tenantId: req.tenantId,
        type: 'BUSINESS',
        severity: 'CRITICAL',
        taskId: req.taskId,
        runId: req.runId,
        executorId,
        message: 'ledger mismatch',
        data: { attempt: 1, at, data: { account: 7 } },
        count: 1,
        raisedAt: at,
        source: 'executor',
      },
    ]);
  });

  it('when the broker cannot take it, the alarm goes through the engine (not marked published)', async () => {
    const bus = new InProcessAlarmBus();
    await bus.close(); // "disconnected"
    const executor = await harness.start(engine, { handlers: [raiser], alarmBus: bus, progressIntervalMs: 10_000 });
    const req = engine.request({ handler: 'raise' });
    await engine.dispatch(executor.url, req);
    await engine.finalCallback(req.runId);
    expect(alarmsOf(req.runId)).toEqual([{ id: expect.any(String), severity: 'CRITICAL', message: 'ledger mismatch', data: { account: 7 }, at: expect.any(Number) }]);
  });

  it('checks brokerUrl and alarmTopicPrefix', async () => {
    await expect(harness.start(engine, { handlers: [raiser], brokerUrl: 'http://mq:61613' })).rejects.toThrow(/brokerUrl: .*scheme/);
    await expect(harness.start(engine, { handlers: [raiser], alarmTopicPrefix: 'no-dot' })).rejects.toThrow(/alarmTopicPrefix/);
  });
});
