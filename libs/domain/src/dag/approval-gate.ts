import { principalNameProblem } from '../access/principal-names';
import type { ApprovalGate, ApprovalOutcome, ApproverRole, Role } from '../types';
import { APPROVAL_OUTCOMES, APPROVER_ROLES } from '../types';
import type { FieldError } from '../validation/field-error';
import { integerInRange, isPlainObject } from '../validation/field-error';

/** Shortest wait an approval gate may give a person: 1 s. */
export const MIN_APPROVAL_TIMEOUT_MS = 1_000;
/** Longest: 30 days (a decision no one takes within a month is better made by the deadline). */
export const MAX_APPROVAL_TIMEOUT_MS = 30 * 86_400_000;
/** Most named approvers on one gate. */
export const MAX_APPROVAL_USERS = 50;
/** Longest comment a decision carries, in characters. */
export const MAX_APPROVAL_COMMENT = 1_000;
/**
 * How long a rejection (a person's, or a deadline's with onTimeout REJECT) counts as being carried
 * out: the engines' watchdog does it within a tick (500 ms by default), so a rejection still not
 * carried out this long after it was due has no engine serving its group, and a cancel may end
 * the run (it would wait, uncancellable, until an engine came back).
 */
export const REJECTION_APPLIED_WITHIN_MS = 60_000;

/** The gate's defaults (role null, users [], a day, REJECT on timeout), the one place they are written. */
export const APPROVAL_GATE_DEFAULTS: Readonly<Omit<ApprovalGate, 'role' | 'users'>> = { timeoutMs: 86_400_000, onTimeout: 'REJECT' };

const GATE_KEYS = ['role', 'users', 'timeoutMs', 'onTimeout'];

/**
 * Reads an approval gate as a request body or a tasks-as-code file gives it: the gate with its
 * defaults filled in, or every problem, each naming its field relative to the gate (`users[1]`,
 * `timeoutMs`; the caller prefixes its own place). A gate must name someone: a role, or users.
 */
export function readApprovalGate(value: unknown): { gate: ApprovalGate; errors: [] } | { gate: null; errors: FieldError[] } {
  if (!isPlainObject(value)) return { gate: null, errors: [{ field: '', reason: 'must be an object of role, users, timeoutMs, onTimeout' }] };
  const errors: FieldError[] = [];
  for (const key of Object.keys(value)) if (!GATE_KEYS.includes(key)) errors.push({ field: key, reason: `unknown field (expected ${GATE_KEYS.join(', ')})` });
  const role = value.role ?? null;
  if (role !== null && !(APPROVER_ROLES as readonly unknown[]).includes(role)) errors.push({ field: 'role', reason: `must be null or one of ${APPROVER_ROLES.join(', ')}` });
  // Left out: the default. A null is not "left out" (only `role` takes null, meaning no role): it is refused, naming the field.
  const users = value.users === undefined ? [] : value.users;
  if (!Array.isArray(users) || users.length > MAX_APPROVAL_USERS) {
    errors.push({ field: 'users', reason: `must be a list of at most ${MAX_APPROVAL_USERS} usernames` });
  } else {
    // A name no user or key can have would wait for a decider who never comes.
    users.forEach((u, i) => {
      const problem = typeof u === 'string' ? principalNameProblem(u.trim()) : principalNameProblem('');
      if (problem) errors.push({ field: `users[${i}]`, reason: problem });
    });
    if (role === null && users.length === 0) errors.push({ field: 'role', reason: 'a gate must name who may decide: a role, or users' });
  }
  const timeoutMs = value.timeoutMs === undefined ? APPROVAL_GATE_DEFAULTS.timeoutMs : value.timeoutMs;
  const timeoutProblem = integerInRange(timeoutMs, MIN_APPROVAL_TIMEOUT_MS, MAX_APPROVAL_TIMEOUT_MS);
  if (timeoutProblem) errors.push({ field: 'timeoutMs', reason: timeoutProblem });
  const onTimeout = value.onTimeout === undefined ? APPROVAL_GATE_DEFAULTS.onTimeout : value.onTimeout;
  if (!(APPROVAL_OUTCOMES as readonly unknown[]).includes(onTimeout)) errors.push({ field: 'onTimeout', reason: `must be one of ${APPROVAL_OUTCOMES.join(', ')}` });
  if (errors.length > 0) return { gate: null, errors };
  return {
    gate: { role: role as ApproverRole | null, users: [...new Set((users as string[]).map((u) => u.trim()))].sort(), timeoutMs: timeoutMs as number, onTimeout: onTimeout as ApprovalGate['onTimeout'] },
    errors: [],
  };
}

/** How much each role reaches: a gate's role admits it and every role above it. */
const REACH: Readonly<Record<Role, number>> = { OPERATOR: 3, TENANT_ADMIN: 2, TENANT_VIEWER: 1 };

/**
 * The one gate a child run waits on when several of its incoming edges carry one (a fan-in whose
 * gated edges all fired): whoever any of them admits may decide (the widest role, every named
 * user), the earliest deadline ends the wait, and it rejects on timeout unless every gate says
 * APPROVE — a step guarded twice is let through by default only when both guards agree. Null: no gate.
 */
export function mergeGates(gates: readonly ApprovalGate[]): ApprovalGate | null {
  if (gates.length === 0) return null;
  const roles = gates.map((g) => g.role).filter((r): r is ApproverRole => r !== null);
  return {
    role: roles.length === 0 ? null : roles.reduce((a, b) => (REACH[b] < REACH[a] ? b : a)),
    users: [...new Set(gates.flatMap((g) => g.users))].sort(),
    timeoutMs: Math.min(...gates.map((g) => g.timeoutMs)),
    onTimeout: gates.every((g) => g.onTimeout === 'APPROVE') ? 'APPROVE' : 'REJECT',
  };
}

/** Who is deciding: a tenant user (session) or API key (`api-key:<name>`), and its role. */
export interface Decider {
  username: string;
  role: Role;
}

/**
 * Why `decider` may not decide on a run waiting on `gate`, or null when it may: it is named, or
 * its role reaches the gate's role. (Tenant scoping is the caller's: a run of another tenant is
 * not found at all.) An operator has no tenant and is never a tenant's approver.
 */
export function refusalToDecide(gate: Pick<ApprovalGate, 'role' | 'users'>, decider: Decider): string | null {
  if (gate.users.includes(decider.username)) return null;
  if (decider.role !== 'OPERATOR' && gate.role !== null && REACH[decider.role] >= REACH[gate.role]) return null;
  return `${decider.username} (${decider.role}) may not decide: the approvers are ${describeApprovers(gate)}`;
}

/**
 * Why a person's decision at `now` comes too late for a step waiting until `deadlineAt`, or null.
 * From its deadline on, the step decides itself (`onTimeout`): the engines record that when their
 * watchdog next reads the step, and a person who decides first — between two watchdog ticks, or
 * while no engine runs — must not overturn it.
 */
export function lateDecisionProblem(step: { deadlineAt: number; onTimeout: ApprovalOutcome }, now: number): string | null {
  return now >= step.deadlineAt ? `reached its deadline (${new Date(step.deadlineAt).toISOString()}): the step decides ${step.onTimeout} by itself` : null;
}

/** The approvers in words, for alarms and refusals: `TENANT_ADMIN or alice, bob`. */
export function describeApprovers(gate: Pick<ApprovalGate, 'role' | 'users'>): string {
  const parts = [...(gate.role ? [`any ${gate.role}`] : []), ...(gate.users.length > 0 ? [gate.users.join(', ')] : [])];
  return parts.join(' or ');
}

/** The reason a decision's comment is refused, or null: optional, at most MAX_APPROVAL_COMMENT characters. */
export function commentProblem(comment: unknown): string | null {
  if (comment === undefined || comment === null) return null;
  if (typeof comment !== 'string') return 'must be a string';
  if (comment.length > MAX_APPROVAL_COMMENT) return `must be at most ${MAX_APPROVAL_COMMENT} characters`;
  return null;
}
