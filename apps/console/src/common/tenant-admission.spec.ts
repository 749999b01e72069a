import { describe, expect, it } from 'vitest';
import { TenantAdmission, TENANT_REQUESTS_IN_FLIGHT, TENANT_REQUESTS_WAITING, type AdmissionTicket } from './tenant-admission';
import { TenantBusyError } from './tenant-busy-error';

/** Whether the ticket's request may be worked on yet (its `ready` settled as admitted). */
async function admitted(ticket: AdmissionTicket): Promise<boolean> {
  let yes = false;
  void ticket.ready.then(() => (yes = true), () => undefined);
  await new Promise((resolve) => setImmediate(resolve));
  return yes;
}

describe('TenantAdmission', () => {
  it('works on 8 requests of a tenant at once by default and lets 256 more wait', () => {
    expect([TENANT_REQUESTS_IN_FLIGHT, TENANT_REQUESTS_WAITING]).toEqual([8, 256]);
  });

  it("lets a tenant's requests past the bound wait in order, each taking the place the first to end leaves; another tenant goes at once", async () => {
    const admission = new TenantAdmission({ inFlight: 2, waiting: 10 });
    const [a1, a2, a3, a4] = [1, 2, 3, 4].map(() => admission.enter('a'));
    expect(await Promise.all([a1, a2, a3, a4].map(admitted))).toEqual([true, true, false, false]);
    expect(admission.of('a')).toEqual({ inFlight: 2, waiting: 2 });
    const b = admission.enter('b');
    expect(await admitted(b)).toBe(true);
    a2.leave();
    expect(await Promise.all([a3, a4].map(admitted))).toEqual([true, false]);
    a2.leave(); // a second leave of the same request frees nothing more
    expect(await admitted(a4)).toBe(false);
    a1.leave();
    expect(await admitted(a4)).toBe(true);
    expect(admission.of('a')).toEqual({ inFlight: 2, waiting: 0 });
    for (const t of [a3, a4, b]) t.leave();
    expect(admission.of('a')).toEqual({ inFlight: 0, waiting: 0 });
    expect(admission.of('b')).toEqual({ inFlight: 0, waiting: 0 });
  });

  it('answers 429 TENANT_BUSY with Retry-After once the line is full, for that tenant only', () => {
    const admission = new TenantAdmission({ inFlight: 1, waiting: 2 });
    for (let i = 0; i < 3; i++) admission.enter('a');
    let refused: unknown;
    try {
      admission.enter('a');
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(TenantBusyError);
    expect((refused as TenantBusyError).getStatus()).toBe(429);
    expect((refused as TenantBusyError).code).toBe('TENANT_BUSY');
    expect((refused as TenantBusyError).retryAfterSeconds).toBe(1);
    expect((refused as TenantBusyError).message).toBe('1 requests of this tenant are being worked on and 2 are waiting; send again shortly');
    expect(() => admission.enter('b')).not.toThrow();
  });

  it('takes a request whose client left out of the line (its ready rejects) without giving it a place', async () => {
    const admission = new TenantAdmission({ inFlight: 1, waiting: 5 });
    const first = admission.enter('a');
    const gone = admission.enter('a');
    const next = admission.enter('a');
    const refusal = gone.ready.catch((err: unknown) => err);
    gone.leave();
    expect(await refusal).toBeInstanceOf(TenantBusyError);
    expect(admission.of('a')).toEqual({ inFlight: 1, waiting: 1 });
    first.leave();
    expect(await admitted(next)).toBe(true);
    next.leave();
    expect(admission.of('a')).toEqual({ inFlight: 0, waiting: 0 });
  });
});
