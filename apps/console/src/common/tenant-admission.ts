import { TenantBusyError } from './tenant-busy-error';

/** Default: a tenant's console requests worked on at once; each holds at most one database connection at a time, of the console's 20. */
export const TENANT_REQUESTS_IN_FLIGHT = 8;
/** Default: a tenant's console requests that may wait for a place, first come first served; the next is answered 429 TENANT_BUSY. */
export const TENANT_REQUESTS_WAITING = 256;

/** One request's place: `ready` once it may be worked on; `leave` when its answer has ended or its client has gone. */
export interface AdmissionTicket {
  ready: Promise<void>;
  leave: () => void;
}

/** A request's response, as far as its place is concerned: its 'close' (the answer sent, or the client gone) gives the place back. */
export interface ClosingResponse {
  /** True once 'close' has been emitted (Node's ServerResponse). */
  readonly closed?: boolean;
  once(event: 'close', listener: () => void): unknown;
}

interface Tenant {
  inFlight: number;
  waiting: Array<() => void>;
}

/**
 * A tenant's console requests, past authentication: at most `inFlight` are worked on at once, up
 * to `waiting` more wait their turn in order, the rest are refused (TenantBusyError). The console
 * is one event loop and one pool of database connections: without this, a tenant sending 64 list
 * calls at once on 64 connections had 64 handlers taking turns with another tenant's one, whose
 * p50 went from 5 to 72 ms (bench heavy-neighbour --flood=list). Bounded, the flood waits behind
 * itself and another tenant's call meets at most `inFlight` of its requests. A request's place is
 * held until its answer has been sent (a streamed download: to its end) or its client has gone.
 */
export class TenantAdmission {
  private readonly tenants = new Map<string, Tenant>();

  constructor(private readonly limits: { inFlight: number; waiting: number } = { inFlight: TENANT_REQUESTS_IN_FLIGHT, waiting: TENANT_REQUESTS_WAITING }) {}

  /** A place for one request of the tenant, or TenantBusyError (thrown) when its line is full. */
  enter(tenantId: string): AdmissionTicket {
    let tenant = this.tenants.get(tenantId);
    if (!tenant) this.tenants.set(tenantId, (tenant = { inFlight: 0, waiting: [] }));
    const held = tenant;
    if (held.inFlight < this.limits.inFlight) {
      held.inFlight++;
      let left = false;
      return { ready: Promise.resolve(), leave: () => void (left || ((left = true), this.free(tenantId, held))) };
    }
    if (held.waiting.length >= this.limits.waiting) {
      throw new TenantBusyError(`${this.limits.inFlight} requests of this tenant are being worked on and ${held.waiting.length} are waiting; send again shortly`);
    }
    let state: 'waiting' | 'admitted' | 'left' = 'waiting';
    let admit!: () => void;
    let refuse!: (err: Error) => void;
    const ready = new Promise<void>((resolve, reject) => {
      admit = () => {
        state = 'admitted';
        resolve();
      };
      refuse = reject;
    });
    held.waiting.push(admit);
    const leave = () => {
      if (state === 'admitted') this.free(tenantId, held);
      else if (state === 'waiting') {
        held.waiting.splice(held.waiting.indexOf(admit), 1);
        refuse(new TenantBusyError('the client left before its request had its turn'));
      }
      state = 'left';
    };
    return { ready, leave };
  }

  /**
   * Waits for a place for one request of the tenant, held until `response` closes: the way a route
   * takes its tenant's admission (ConsoleAuthGuard, once the principal is known; an inbound
   * webhook's delivery, once its hook is). TenantBusyError when the tenant's line is full, or when
   * the client is gone: a response that closed before this call (its client left while the request
   * was authenticated or its hook looked up) has emitted its 'close' already and never would again,
   * so a place taken for it would never be given back.
   */
  async admit(tenantId: string, response: ClosingResponse): Promise<void> {
    if (response.closed === true) throw new TenantBusyError('the client left before its request had its turn');
    const ticket = this.enter(tenantId);
    response.once('close', ticket.leave);
    await ticket.ready;
  }

  /** Requests of the tenant worked on and waiting: what a test checks is given back. */
  of(tenantId: string): { inFlight: number; waiting: number } {
    const tenant = this.tenants.get(tenantId);
    return { inFlight: tenant?.inFlight ?? 0, waiting: tenant?.waiting.length ?? 0 };
  }

  /** A place freed: the next in line takes it, or the tenant has one fewer in flight. */
  private free(tenantId: string, tenant: Tenant): void {
    const next = tenant.waiting.shift();
    if (next) return next();
    tenant.inFlight--;
    if (tenant.inFlight === 0 && this.tenants.get(tenantId) === tenant) this.tenants.delete(tenantId);
  }
}
