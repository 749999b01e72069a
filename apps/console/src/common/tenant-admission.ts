import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './cursor';
import { TenantBusyError } from './tenant-busy-error';

/** Default: a tenant's places for console requests worked on at once (a request takes one, a list page one per 50 items: requestWeight); each request holds at most one database connection at a time, of the console's 20. */
export const TENANT_REQUESTS_IN_FLIGHT = 8;
/** Default: a tenant's places for console requests waiting their turn, first come first served; a request that does not fit is answered 429 TENANT_BUSY. */
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

/**
 * The places a request takes in its tenant's admission: a list page one per DEFAULT_PAGE_SIZE
 * (50) items it asks for (`limit` in its query; 500 → 10, all 8 of a tenant's), any other request
 * one. A page of 500 runs costs the console about ten times a page of 50 (reading, mapping,
 * serialising): counted as one request each, a tenant's 8 at once kept the event loop busy and
 * every other tenant's calls waited behind them; weighed, a tenant has one such page worked on
 * at a time, and the rest of its flood waits, or is refused, in its own line.
 */
export function requestWeight(url: string): number {
  const limit = new URLSearchParams(url.split('?')[1] ?? '').get('limit');
  const items = limit !== null && /^\d+$/.test(limit) ? Math.min(Number(limit), MAX_PAGE_SIZE) : DEFAULT_PAGE_SIZE;
  return Math.max(1, Math.ceil(items / DEFAULT_PAGE_SIZE));
}

interface Waiter {
  places: number;
  admit: () => void;
}

interface Tenant {
  /** Places of its requests worked on. */
  inFlight: number;
  waiting: Waiter[];
  /** Places of its requests waiting. */
  waitingPlaces: number;
}

/**
 * A tenant's console requests, past authentication, each taking its places (requestWeight; at
 * most all `inFlight`): at most `inFlight` places are worked on at once, up to `waiting` more
 * wait their turn in order (a request that does not fit yet waits, and so do those behind it),
 * a request that finds no room in the line is refused (TenantBusyError). The console is one
 * event loop and one pool of database connections: without this, a tenant sending 64 list calls
 * at once on 64 connections had 64 handlers taking turns with another tenant's one, whose p50
 * went from 5 to 72 ms (bench heavy-neighbour --flood=list). Bounded, the flood waits behind
 * itself and another tenant's call meets at most `inFlight` places of its work. A request's places
 * are held until its answer has been sent (a streamed download: to its end) or its client has gone.
 */
export class TenantAdmission {
  private readonly tenants = new Map<string, Tenant>();

  constructor(private readonly limits: { inFlight: number; waiting: number } = { inFlight: TENANT_REQUESTS_IN_FLIGHT, waiting: TENANT_REQUESTS_WAITING }) {}

  /** Places for one request of the tenant (`weight` of them), or TenantBusyError (thrown) when its line has no room for it. */
  enter(tenantId: string, weight = 1): AdmissionTicket {
    let tenant = this.tenants.get(tenantId);
    if (!tenant) this.tenants.set(tenantId, (tenant = { inFlight: 0, waiting: [], waitingPlaces: 0 }));
    const held = tenant;
    const places = Math.min(Math.max(1, weight), this.limits.inFlight);
    // In order: a light request does not pass a heavy one waiting for room.
    if (held.waiting.length === 0 && held.inFlight + places <= this.limits.inFlight) {
      held.inFlight += places;
      let left = false;
      return { ready: Promise.resolve(), leave: () => void (left || ((left = true), this.free(tenantId, held, places))) };
    }
    if (held.waitingPlaces + places > this.limits.waiting) {
      throw new TenantBusyError(`this tenant's requests fill its places: ${held.inFlight} of ${this.limits.inFlight} worked on, ${held.waitingPlaces} of ${this.limits.waiting} waiting (a list page takes a place per ${DEFAULT_PAGE_SIZE} items it asks for); send again shortly`);
    }
    let state: 'waiting' | 'admitted' | 'left' = 'waiting';
    let refuse!: (err: Error) => void;
    const waiter: Waiter = { places, admit: () => undefined };
    const ready = new Promise<void>((resolve, reject) => {
      waiter.admit = () => {
        state = 'admitted';
        resolve();
      };
      refuse = reject;
    });
    held.waiting.push(waiter);
    held.waitingPlaces += places;
    const leave = () => {
      if (state === 'admitted') this.free(tenantId, held, places);
      else if (state === 'waiting') {
        held.waiting.splice(held.waiting.indexOf(waiter), 1);
        held.waitingPlaces -= places;
        refuse(new TenantBusyError('the client left before its request had its turn'));
        // A heavy request that left may have kept lighter ones behind it waiting.
        this.admitWaiting(tenantId, held);
      }
      state = 'left';
    };
    return { ready, leave };
  }

  /**
   * Waits for `weight` places for one request of the tenant, held until `response` closes: the way
   * a route takes its tenant's admission (ConsoleAuthGuard, once the principal is known, with the
   * request's requestWeight; an inbound webhook's delivery, one place, once its hook is).
   * TenantBusyError when the tenant's line has no room for it, or when the client is gone: a
   * response that closed before this call (its client left while the request was authenticated or
   * its hook looked up) has emitted its 'close' already and never would again, so places taken for
   * it would never be given back.
   */
  async admit(tenantId: string, response: ClosingResponse, weight = 1): Promise<void> {
    if (response.closed === true) throw new TenantBusyError('the client left before its request had its turn');
    const ticket = this.enter(tenantId, weight);
    response.once('close', ticket.leave);
    await ticket.ready;
  }

  /** The places of the tenant's requests worked on and waiting: what a test checks is given back. */
  of(tenantId: string): { inFlight: number; waiting: number } {
    const tenant = this.tenants.get(tenantId);
    return { inFlight: tenant?.inFlight ?? 0, waiting: tenant?.waitingPlaces ?? 0 };
  }

  /** A request's places freed: the next in line take them, as far as they go. */
  private free(tenantId: string, tenant: Tenant, places: number): void {
    tenant.inFlight -= places;
    this.admitWaiting(tenantId, tenant);
  }

  /** Admits the tenant's first waiting requests that fit, in order; forgets a tenant with nothing left. */
  private admitWaiting(tenantId: string, tenant: Tenant): void {
    for (let next = tenant.waiting[0]; next && tenant.inFlight + next.places <= this.limits.inFlight; next = tenant.waiting[0]) {
      tenant.waiting.shift();
      tenant.waitingPlaces -= next.places;
      tenant.inFlight += next.places;
      next.admit();
    }
    if (tenant.inFlight === 0 && tenant.waiting.length === 0 && this.tenants.get(tenantId) === tenant) this.tenants.delete(tenantId);
  }
}
