import { describe, expect, it } from 'vitest';
import { TenantAdmission, type AdmissionVerdict, type TenantAdmissionLimits } from './tenant-admission';
import { RefusalLogThrottle } from './refusal-log-throttle';

const OFF: TenantAdmissionLimits = { inFlight: 0, waiting: 0, ratePerSec: 0, burst: 1 };
const noTurn = () => undefined;

/** Admits `n` requests of `tenant` at `now`; the verdicts' kinds (and reasons). */
function admitMany(admission: TenantAdmission, tenant: string, n: number, now = 0): string[] {
  return Array.from({ length: n }, () => describeVerdict(admission.admit(tenant, now, noTurn)));
}
function describeVerdict(v: AdmissionVerdict): string {
  return v.kind === 'refused' ? v.reason : v.kind;
}

describe('TenantAdmission', () => {
  it('works on at most inFlight requests of a tenant at once, lets `waiting` more wait, and refuses the next as TENANT_BUSY', () => {
    const admission = new TenantAdmission({ ...OFF, inFlight: 2, waiting: 1 });
    expect(admitMany(admission, 'a', 4)).toEqual(['admitted', 'admitted', 'queued', 'TENANT_BUSY']);
    expect(admission.load('a')).toEqual({ working: 2, waiting: 1 });
    const busy = admission.admit('a', 0, noTurn);
    expect(busy).toEqual({ kind: 'refused', reason: 'TENANT_BUSY', retryAfterMs: 1_000 });
  });

  it('hands a released place to the request waiting longest, in order, and frees it when none waits', () => {
    const admission = new TenantAdmission({ ...OFF, inFlight: 1, waiting: 5 });
    const turns: string[] = [];
    expect(admission.admit('a', 0, () => turns.push('first')).kind).toBe('admitted');
    expect(admission.admit('a', 0, () => turns.push('second')).kind).toBe('queued');
    expect(admission.admit('a', 0, () => turns.push('third')).kind).toBe('queued');
    admission.release('a');
    expect(turns).toEqual(['second']);
    expect(admission.load('a')).toEqual({ working: 1, waiting: 1 });
    admission.release('a');
    admission.release('a');
    expect(turns).toEqual(['second', 'third']);
    expect(admission.load('a')).toEqual({ working: 0, waiting: 0 });
    expect(admission.admit('a', 0, noTurn).kind).toBe('admitted');
  });

  it('refuses at once past inFlight when none may wait', () => {
    const admission = new TenantAdmission({ ...OFF, inFlight: 1, waiting: 0 });
    expect(admitMany(admission, 'a', 2)).toEqual(['admitted', 'TENANT_BUSY']);
  });

  it('admits `burst` requests at once, then refills at ratePerSec, and says how long until the next token', () => {
    const admission = new TenantAdmission({ ...OFF, ratePerSec: 10, burst: 3 });
    expect(admitMany(admission, 'a', 3, 1_000)).toEqual(['admitted', 'admitted', 'admitted']);
    expect(admission.admit('a', 1_000, noTurn)).toEqual({ kind: 'refused', reason: 'TENANT_RATE_LIMITED', retryAfterMs: 100 });
    // 10 per second: one token every 100 ms.
    expect(describeVerdict(admission.admit('a', 1_099, noTurn))).toBe('TENANT_RATE_LIMITED');
    expect(describeVerdict(admission.admit('a', 1_100, noTurn))).toBe('admitted');
    expect(describeVerdict(admission.admit('a', 1_100, noTurn))).toBe('TENANT_RATE_LIMITED');
    // A quiet spell refills up to the burst, not beyond.
    expect(admitMany(admission, 'a', 4, 60_000)).toEqual(['admitted', 'admitted', 'admitted', 'TENANT_RATE_LIMITED']);
  });

  it('gives the token back to a request refused as busy (it cost nothing; its retry pays again)', () => {
    const admission = new TenantAdmission({ inFlight: 1, waiting: 0, ratePerSec: 1, burst: 2 });
    expect(admitMany(admission, 'a', 2)).toEqual(['admitted', 'TENANT_BUSY']);
    admission.release('a');
    expect(admitMany(admission, 'a', 2)).toEqual(['admitted', 'TENANT_RATE_LIMITED']);
  });

  it('keeps each tenant to its own bounds: a tenant at its limits costs another nothing', () => {
    const admission = new TenantAdmission({ inFlight: 2, waiting: 1, ratePerSec: 1, burst: 5 });
    expect(admitMany(admission, 'a', 5)).toEqual(['admitted', 'admitted', 'queued', 'TENANT_BUSY', 'TENANT_BUSY']);
    expect(admitMany(admission, 'b', 4)).toEqual(['admitted', 'admitted', 'queued', 'TENANT_BUSY']);
    for (let i = 0; i < 3; i++) admission.release('a');
    // a has 2 of its 5 tokens left (3 taken; the busy ones' were given back), and spends them:
    expect(admitMany(admission, 'a', 3)).toEqual(['admitted', 'admitted', 'TENANT_RATE_LIMITED']);
    // b's bucket and places are its own.
    for (let i = 0; i < 3; i++) admission.release('b');
    expect(admitMany(admission, 'b', 2)).toEqual(['admitted', 'admitted']);
    expect(admission.load('a')).toEqual({ working: 2, waiting: 0 });
    expect(admission.load('b')).toEqual({ working: 2, waiting: 0 });
  });

  it('bounds nothing at 0: every request admitted at once, nothing kept per tenant', () => {
    const admission = new TenantAdmission(OFF);
    expect(new Set(admitMany(admission, 'a', 10_000))).toEqual(new Set(['admitted']));
    expect(admission.load('a')).toEqual({ working: 0, waiting: 0 });
    admission.release('a'); // a release without a lane does nothing
    // Each bound turns off on its own.
    expect(new Set(admitMany(new TenantAdmission({ ...OFF, ratePerSec: 2, burst: 2 }), 'a', 3))).toEqual(new Set(['admitted', 'TENANT_RATE_LIMITED']));
    expect(new Set(admitMany(new TenantAdmission({ ...OFF, inFlight: 1 }), 'a', 3))).toEqual(new Set(['admitted', 'TENANT_BUSY']));
  });
});

describe('RefusalLogThrottle', () => {
  it('says to log a tenant once per period, with the refusals counted since its last line', () => {
    const throttle = new RefusalLogThrottle(10_000);
    expect(throttle.refused('a', 0)).toBe(1);
    expect(throttle.refused('a', 1)).toBe(0);
    expect(throttle.refused('a', 9_999)).toBe(0);
    expect(throttle.refused('b', 5_000)).toBe(1);
    expect(throttle.refused('a', 10_000)).toBe(3);
    expect(throttle.refused('a', 10_001)).toBe(0);
  });
});
