import { describe, expect, it } from 'vitest';
import {
  ALARM_ACK_SCHEMA,
  ALARM_MESSAGE_JSON_SCHEMA,
  ALARM_SCHEMA,
  alarmMessageOf,
  alarmTopic,
  buildAlarmMessage,
  checkAlarmAck,
  checkAlarmMessage,
  checkTopicPrefix,
  defaultAckTopicPrefix,
  tenantOfTopic,
  type AlarmFields,
} from './alarm-message';

const fields: AlarmFields = {
  id: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
  tenantId: 'acme',
  type: 'TIMEOUT',
  severity: 'CRITICAL',
  taskId: 3,
  runId: 42,
  executorId: null,
  message: 'Task report: run 42 timed out',
  data: { attempt: 1 },
  count: 1,
  raisedAt: 1_767_225_600_000,
  source: 'engine',
};

describe('alarm message (baton.alarm/1)', () => {
  it('is built with every field of the schema, and passes its own check', () => {
    const m = buildAlarmMessage(fields);
    expect(m).toEqual({ schema: ALARM_SCHEMA, ...fields });
    expect(Object.keys(m).sort()).toEqual([...ALARM_MESSAGE_JSON_SCHEMA.required].sort());
    expect(Object.keys(ALARM_MESSAGE_JSON_SCHEMA.properties).sort()).toEqual([...ALARM_MESSAGE_JSON_SCHEMA.required].sort());
    expect(checkAlarmMessage(JSON.parse(JSON.stringify(m)))).toEqual({ ok: true, value: m });
  });

  it('is made from a stored alarm: its uid as the id (row-<id> on rows without one), published by the engine', () => {
    const { id: _id, source: _source, ...alarm } = fields;
    expect(alarmMessageOf({ ...alarm, id: 12, uid: 'u-12' })).toEqual({ schema: ALARM_SCHEMA, ...alarm, id: 'u-12', source: 'engine' });
    expect(alarmMessageOf({ ...alarm, id: 12, uid: null }).id).toBe('row-12');
  });

  it('cuts the message to 1000 characters and keeps count ≥ 1', () => {
    const m = buildAlarmMessage({ ...fields, message: 'é'.repeat(1500), count: 0, data: null });
    expect(Array.from(m.message)).toHaveLength(1000);
    expect(m.message.endsWith('…')).toBe(true);
    expect(m.count).toBe(1);
  });

  it.each([
    [{ schema: 'baton.alarm/2' }, /schema/],
    [{ id: 'has space' }, /^id/],
    [{ tenantId: '' }, /tenantId/],
    [{ type: 'PANIC' }, /type/],
    [{ severity: 'LOW' }, /severity/],
    [{ taskId: 0 }, /taskId/],
    [{ runId: '42' }, /runId/],
    [{ message: 7 }, /message/],
    [{ count: 0 }, /count/],
    [{ raisedAt: 1.5 }, /raisedAt/],
    [{ source: 'someone' }, /source/],
  ])('refuses %j', (patch, problem) => {
    const checked = checkAlarmMessage({ ...buildAlarmMessage(fields), ...patch });
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.problem).toMatch(problem);
  });

  it('refuses what is not an object, and a message without data', () => {
    expect(checkAlarmMessage('x').ok).toBe(false);
    expect(checkAlarmMessage([]).ok).toBe(false);
    const { data: _data, ...noData } = buildAlarmMessage(fields);
    expect(checkAlarmMessage(noData)).toMatchObject({ ok: false, problem: expect.stringMatching(/data/) });
  });

  it('checks acks', () => {
    const ack = { schema: ALARM_ACK_SCHEMA, id: fields.id, alarmId: 5, tenantId: 'acme', ackedAt: 1, ackedBy: 'ann', origin: 'console-1' };
    expect(checkAlarmAck(ack).ok).toBe(true);
    expect(checkAlarmAck({ ...ack, alarmId: 0 }).ok).toBe(false);
    expect(checkAlarmAck({ ...ack, schema: ALARM_SCHEMA }).ok).toBe(false);
  });
});

describe('alarm topics', () => {
  it('names a tenant topic and reads the tenant back', () => {
    expect(alarmTopic('baton.alarms.', 'acme')).toBe('baton.alarms.acme');
    expect(tenantOfTopic('baton.alarms.', '/topic/baton.alarms.acme')).toBe('acme');
    expect(tenantOfTopic('baton.alarms.', 'baton.alarms.acme')).toBe('acme');
    expect(tenantOfTopic('baton.alarms.', '/topic/baton.alarms.')).toBeNull();
    expect(tenantOfTopic('baton.alarms.', '/topic/other.acme')).toBeNull();
  });

  it('derives the ack prefix and checks prefixes (wildcards need a trailing dot)', () => {
    expect(defaultAckTopicPrefix('baton.alarms.')).toBe('baton.alarms-acks.');
    expect(checkTopicPrefix('prod.baton.alarms.')).toBe('prod.baton.alarms.');
    for (const bad of ['baton.alarms', '', '.x.', 'a..b.', 'a.>.', 'a b.']) expect(() => checkTopicPrefix(bad)).toThrow(/ending with a dot/);
  });
});
