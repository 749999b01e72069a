import { describe, expect, it } from 'vitest';
import type { ApprovalGate } from '../types';
import { commentProblem, describeApprovers, lateDecisionProblem, MAX_APPROVAL_COMMENT, MAX_APPROVAL_TIMEOUT_MS, mergeGates, readApprovalGate, refusalToDecide } from './approval-gate';

const gate = (over: Partial<ApprovalGate>): ApprovalGate => ({ role: null, users: [], timeoutMs: 60_000, onTimeout: 'REJECT', ...over });

const RULE = "must be a username (1 to 100 characters) or api-key:<an API key's name of 1 to 100 characters>";

describe('readApprovalGate', () => {
  it('fills the defaults: a day, REJECT on timeout, no named users', () => {
    expect(readApprovalGate({ role: 'TENANT_ADMIN' })).toEqual({ gate: { role: 'TENANT_ADMIN', users: [], timeoutMs: 86_400_000, onTimeout: 'REJECT' }, errors: [] });
  });

  it('refuses a null users, timeoutMs or onTimeout, naming each (left out takes the default; only role takes null)', () => {
    const read = readApprovalGate({ role: 'TENANT_ADMIN', users: null, timeoutMs: null, onTimeout: null });
    expect(read.gate).toBeNull();
    expect(read.errors.map((e) => e.field)).toEqual(['users', 'timeoutMs', 'onTimeout']);
  });

  it('takes any name a user or an API key can have: single sign-on names hold any character', () => {
    const names = ['x'.repeat(100), 'jane+ops@example.com', 'José Díaz', `api-key:${'k'.repeat(100)}`, 'api-key:chat ops'];
    expect(readApprovalGate({ users: names }).errors).toEqual([]);
  });

  it('keeps named users trimmed, once each, sorted (so a file exported twice is the same)', () => {
    const read = readApprovalGate({ users: ['bob', ' alice', 'bob'], timeoutMs: 5000, onTimeout: 'APPROVE' });
    expect(read.gate).toEqual({ role: null, users: ['alice', 'bob'], timeoutMs: 5000, onTimeout: 'APPROVE' });
  });

  it.each([
    [null, '', 'must be an object of role, users, timeoutMs, onTimeout'],
    [{}, 'role', 'a gate must name who may decide: a role, or users'],
    [{ role: 'OPERATOR' }, 'role', 'must be null or one of TENANT_ADMIN, TENANT_VIEWER'],
    [{ role: 'TENANT_ADMIN', users: 'alice' }, 'users', 'must be a list of at most 50 usernames'],
    [{ users: ['alice', ''] }, 'users[1]', RULE],
    [{ users: ['x'.repeat(101)] }, 'users[0]', RULE],
    [{ users: ['api-key:'] }, 'users[0]', RULE],
    [{ users: [`api-key:${'k'.repeat(101)}`] }, 'users[0]', RULE],
    [{ users: [42] }, 'users[0]', RULE],
    [{ role: 'TENANT_ADMIN', timeoutMs: 999 }, 'timeoutMs', 'must be at least 1000'],
    [{ role: 'TENANT_ADMIN', timeoutMs: MAX_APPROVAL_TIMEOUT_MS + 1 }, 'timeoutMs', `must be at most ${MAX_APPROVAL_TIMEOUT_MS}`],
    [{ role: 'TENANT_ADMIN', timeoutMs: 1.5e3 + 0.5 }, 'timeoutMs', 'must be an integer'],
    [{ role: 'TENANT_ADMIN', onTimeout: 'IGNORE' }, 'onTimeout', 'must be one of APPROVE, REJECT'],
    [{ role: 'TENANT_ADMIN', approvers: ['x'] }, 'approvers', 'unknown field (expected role, users, timeoutMs, onTimeout)'],
  ])('refuses %j naming %s', (value, field, reason) => {
    const read = readApprovalGate(value);
    expect(read.gate).toBeNull();
    expect(read.errors).toContainEqual({ field, reason });
  });
});

describe('mergeGates', () => {
  it('is null without gates, and a single gate itself', () => {
    expect(mergeGates([])).toBeNull();
    expect(mergeGates([gate({ role: 'TENANT_ADMIN' })])).toEqual(gate({ role: 'TENANT_ADMIN' }));
  });

  it('admits whoever any gate admits, ends at the earliest deadline, rejects unless every gate approves on timeout', () => {
    const merged = mergeGates([gate({ role: 'TENANT_ADMIN', users: ['carol'], timeoutMs: 5000, onTimeout: 'APPROVE' }), gate({ role: 'TENANT_VIEWER', users: ['alice'], timeoutMs: 9000, onTimeout: 'REJECT' })]);
    expect(merged).toEqual({ role: 'TENANT_VIEWER', users: ['alice', 'carol'], timeoutMs: 5000, onTimeout: 'REJECT' });
    expect(mergeGates([gate({ onTimeout: 'APPROVE', users: ['a'] }), gate({ onTimeout: 'APPROVE', users: ['b'] })])?.onTimeout).toBe('APPROVE');
    expect(mergeGates([gate({ users: ['a'] }), gate({ users: ['b'] })])?.role).toBeNull();
  });
});

describe('refusalToDecide', () => {
  const admins = gate({ role: 'TENANT_ADMIN' });
  it('admits a role and the roles above it, never an operator', () => {
    expect(refusalToDecide(admins, { username: 'ann', role: 'TENANT_ADMIN' })).toBeNull();
    expect(refusalToDecide(admins, { username: 'vic', role: 'TENANT_VIEWER' })).toBe('vic (TENANT_VIEWER) may not decide: the approvers are any TENANT_ADMIN');
    expect(refusalToDecide(gate({ role: 'TENANT_VIEWER' }), { username: 'vic', role: 'TENANT_VIEWER' })).toBeNull();
    expect(refusalToDecide(gate({ role: 'TENANT_VIEWER' }), { username: 'root', role: 'OPERATOR' })).not.toBeNull();
  });

  it('admits a named user (or API key) whatever its role, and no other user of the role', () => {
    const named = gate({ users: ['vic', 'api-key:chatops'] });
    expect(refusalToDecide(named, { username: 'vic', role: 'TENANT_VIEWER' })).toBeNull();
    expect(refusalToDecide(named, { username: 'api-key:chatops', role: 'TENANT_ADMIN' })).toBeNull();
    expect(refusalToDecide(named, { username: 'ann', role: 'TENANT_ADMIN' })).toBe('ann (TENANT_ADMIN) may not decide: the approvers are vic, api-key:chatops');
  });
});

describe('lateDecisionProblem', () => {
  it('lets a person decide until the deadline, and from its instant on says the step decides by itself', () => {
    const step = { deadlineAt: Date.UTC(2026, 0, 1), onTimeout: 'REJECT' as const };
    expect(lateDecisionProblem(step, step.deadlineAt - 1)).toBeNull();
    expect(lateDecisionProblem(step, step.deadlineAt)).toBe('reached its deadline (2026-01-01T00:00:00.000Z): the step decides REJECT by itself');
    expect(lateDecisionProblem({ ...step, onTimeout: 'APPROVE' }, step.deadlineAt + 60_000)).toMatch(/decides APPROVE by itself$/);
  });
});

describe('describeApprovers and commentProblem', () => {
  it('say who decides, and refuse a comment that is not a short string', () => {
    expect(describeApprovers(gate({ role: 'TENANT_ADMIN', users: ['a', 'b'] }))).toBe('any TENANT_ADMIN or a, b');
    expect(commentProblem(undefined)).toBeNull();
    expect(commentProblem('ok, ship it')).toBeNull();
    expect(commentProblem(42)).toBe('must be a string');
    expect(commentProblem('x'.repeat(MAX_APPROVAL_COMMENT + 1))).toBe(`must be at most ${MAX_APPROVAL_COMMENT} characters`);
  });
});
