import { describe, expect, it } from 'vitest';
import { requestWeight, TenantAdmission, TENANT_REQUESTS_IN_FLIGHT, TENANT_REQUESTS_WAITING, type AdmissionTicket } from './tenant-admission';
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
    expect((refused as TenantBusyError).message).toBe("this tenant's requests fill its places: 1 of 1 worked on, 2 of 2 waiting (a list page takes a place per 50 items it asks for); send again shortly");
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

  it('weighs a list page by the items it asks for: a place per 50 (the default page), any other request one', () => {
    expect(['/api/runs', '/api/runs?limit=20', '/api/runs?limit=50', '/api/runs?limit=51', '/api/runs?state=FAILED&limit=500', '/api/runs?limit=99999', '/api/runs?limit=abc', '/api/hooks/x'].map(requestWeight)).toEqual([1, 1, 1, 2, 10, 10, 1, 1]);
  });

  it("works on a page heavier than the tenant's places alone, lighter requests behind it wait their turn in order; another tenant goes at once", async () => {
    const admission = new TenantAdmission({ inFlight: 8, waiting: 256 });
    const light = admission.enter('a');
    const heavy = admission.enter('a', 10);
    const after = admission.enter('a');
    expect(await Promise.all([light, heavy, after].map(admitted))).toEqual([true, false, false]);
    expect(admission.of('a')).toEqual({ inFlight: 1, waiting: 9 });
    expect(await admitted(admission.enter('b', 10))).toBe(true);
    light.leave();
    expect(await Promise.all([heavy, after].map(admitted))).toEqual([true, false]);
    expect(admission.of('a')).toEqual({ inFlight: 8, waiting: 1 });
    heavy.leave();
    expect(await admitted(after)).toBe(true);
    after.leave();
    expect(admission.of('a')).toEqual({ inFlight: 0, waiting: 0 });
  });

  it("counts the places of the pages waiting: a flood of large pages is refused past the tenant's line, not let wait by the hundred", () => {
    const admission = new TenantAdmission({ inFlight: 8, waiting: 24 });
    for (let i = 0; i < 4; i++) admission.enter('a', 10); // one worked on, three waiting: 24 places
    expect(() => admission.enter('a', 10)).toThrow(TenantBusyError);
    expect(() => admission.enter('a')).toThrow(TenantBusyError);
    expect(admission.of('a')).toEqual({ inFlight: 8, waiting: 24 });
  });

  it('lets the lighter requests behind a waiting page in when its client leaves', async () => {
    const admission = new TenantAdmission({ inFlight: 8, waiting: 256 });
    const first = admission.enter('a', 4);
    const page = admission.enter('a', 8);
    const light = admission.enter('a');
    const refusal = page.ready.catch((err: unknown) => err);
    page.leave();
    expect(await refusal).toBeInstanceOf(TenantBusyError);
    expect(await admitted(light)).toBe(true);
    expect(admission.of('a')).toEqual({ inFlight: 5, waiting: 0 });
    first.leave();
    light.leave();
    expect(admission.of('a')).toEqual({ inFlight: 0, waiting: 0 });
  });
});
