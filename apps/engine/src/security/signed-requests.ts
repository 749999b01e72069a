import { randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger, UnauthorizedException } from '@nestjs/common';
import { CLOCK, type Clock } from '@baton/domain';
import { errorBody, SIGNATURE_HEADERS, verify, type SignatureRefusal, type SignatureRefusalReason, type VerifyResult } from '@baton/protocol';
import { TenantDirectory, type TenantInfo } from '../tenants/tenant-directory';
import { badRequest } from './bad-request';
import { acceptedSecrets, previousSecret } from './executor-secrets';
import type { RawBodyRequest } from './raw-body.middleware';
import { RefusalLogThrottle } from './refusal-log-throttle';
import { ReplayGuard } from './replay-guard';
import { SignedRequestAdmission } from './signed-request-admission';

export interface VerifiedRequest {
  tenant: TenantInfo;
  /** The body as signed (UTF-8 text). */
  body: string;
  /** Version of the tenant's executor secret that verified it (current, or previous during a rotation's overlap window). */
  secretVersion: number;
}

type Headers = Record<string, string | string[] | undefined>;
type Refusal = Extract<VerifyResult, { ok: false }>;

/** A line about a tenant's refused signatures at most this often, with the count since the last. */
const REFUSAL_LOG_EVERY_MS = 10_000;
/** The refusal log's one key for every id that names no tenant: forged ids are unbounded, their lines are not. */
const UNKNOWN_TENANTS = '(unknown tenants)';
/**
 * What a request naming no tenant is verified with: a secret no tenant has (made at start, never
 * shown), so its refusal is the one a wrong secret gets — MISSING_HEADERS, STALE_TIMESTAMP,
 * MALFORMED_SIGNATURE or BAD_SIGNATURE, after the same HMAC work.
 */
const NO_TENANT_SECRET = randomBytes(32).toString('hex');

/**
 * Verifies a request an executor signed (callbacks, heartbeats): tenant from `x-baton-tenant`,
 * HMAC over the raw body with that tenant's executor secret — the current one, or the previous
 * one while a rotation's overlap window lasts — timestamp within the skew window, signature not
 * accepted before on this node. Any failure → 401 with the reason (SECRET_EXPIRED: signed with
 * the previous secret after its window; MALFORMED_SIGNATURE: not the canonical spelling, refused
 * before any HMAC work); the request changes nothing. A tenant that does not exist is refused
 * exactly as a wrong secret of one that does (as a login hides which tenants exist): whoever does
 * not hold a tenant's secret learns nothing of which tenants there are. The operator learns the
 * real reason from the log: a warning per tenant at most every 10 s, with the count since the last
 * (one line for all the ids naming no tenant). The signed path is the
 * protocol path (PATHS), not the URL the request came in on, so a route prefix or a proxy does
 * not break it.
 *
 * Routes go through `handle`: verify, then the tenant's admission (SignedRequestAdmission: 429
 * TENANT_BUSY / TENANT_RATE_LIMITED past the tenant's bounds on this engine), then the route's
 * work. Admission is keyed by the tenant the signature verified — never by the bare header, so
 * no one can spend another tenant's budget by naming it — and comes after the replay check, so a
 * captured request replayed costs its tenant nothing; and before any database work of the route.
 */
@Injectable()
export class SignedRequests {
  private readonly logger = new Logger('SignedRequests');
  private readonly refusalLog = new RefusalLogThrottle(REFUSAL_LOG_EVERY_MS);
  private warnedReserialised = false;

  constructor(
    private readonly tenants: TenantDirectory,
    private readonly replays: ReplayGuard,
    private readonly admission: SignedRequestAdmission,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * A signed route's request: verified (401 otherwise), admitted for its tenant (429 otherwise;
   * it may wait its turn first), then `work` with what was verified. The tenant's place is held
   * until `work` settles.
   */
  async handle<T>(req: RawBodyRequest, path: string, work: (verified: VerifiedRequest) => Promise<T>): Promise<T> {
    const verified = await this.verify(req, path);
    return this.admission.run(verified.tenant.id, path, () => work(verified));
  }

  /** The checks alone, without admission (`handle` runs them first). */
  private async verify(req: RawBodyRequest, path: string): Promise<VerifiedRequest> {
    const tenantId = req.headers[SIGNATURE_HEADERS.tenant];
    if (typeof tenantId !== 'string' || tenantId.length === 0 || tenantId.length > 64) throw unauthorized('MISSING_HEADERS', 'x-baton-tenant is missing');
    const body = this.bodyOf(req);
    const receivedAt = this.clock.now();
    const headers = req.headers as Headers;
    let tenant = await this.tenants.get(tenantId);
    if (!tenant) throw this.refusedNamingNoTenant(tenantId, path, this.check(null, headers, path, body));
    let result = this.check(tenant, headers, path, body);
    // A rotation in the console reaches the cached tenant within its TTL; a request signed with
    // the new secret before that reads it again (at most once a second: a forger's refusal waits for none).
    if (!result.ok && result.reason === 'BAD_SIGNATURE') {
      const reread = await this.tenants.readAfterRefusal(tenantId, receivedAt, false);
      if (reread === null) throw this.refusedNamingNoTenant(tenantId, path, result); // deleted meanwhile
      if (reread && reread !== tenant) {
        tenant = reread;
        result = this.check(tenant, headers, path, body);
      }
    }
    if (!result.ok && result.reason === 'BAD_SIGNATURE' && this.signedWithExpired(tenant, headers, path, body)) {
      throw this.refused(tenantId, path, 'SECRET_EXPIRED', 'signed with the previous executor secret, whose overlap window is over: restart the executor with the new secret');
    }
    if (!result.ok) throw this.refused(tenantId, path, result.reason, refusalMessage(result.reason));
    // `verify` let only the canonical spelling through (lower-case hex, 64 characters), and that
    // spelling maps one-to-one to the decoded bytes: keying the guard on the string is keying it
    // on the bytes, so no re-spelling of a captured signature is a new key.
    const signature = String(headers[SIGNATURE_HEADERS.signature]);
    const timestamp = Number(headers[SIGNATURE_HEADERS.timestamp]);
    if (!this.replays.accept(signature, timestamp, this.clock.now())) throw this.refused(tenantId, path, 'REPLAYED', 'signature already used');
    return { tenant, body, secretVersion: result.version };
  }

  /** The 401 of a tenant's request, logged with the tenant and the reason (at most a line per tenant every 10 s). */
  private refused(tenantId: string, path: string, reason: SignatureRefusalReason, message: string): UnauthorizedException {
    const refused = this.refusalLog.refused(tenantId, this.clock.now());
    if (refused > 0) this.logger.warn(`tenant ${tenantId}'s signed request to ${path} refused (${reason}: ${message}): ${refused} since the last such line`, { tenantId, reason, route: path, refused });
    return unauthorized(reason, message);
  }

  /**
   * The 401 of a request naming no tenant: the answer a wrong secret gets (`refusal`: the request
   * checked against NO_TENANT_SECRET, or, for a tenant deleted while it was checked, its own
   * refusal); the log says why (one line for all such ids at most every 10 s, naming the latest).
   */
  private refusedNamingNoTenant(tenantId: string, path: string, refusal: Refusal | { ok: true }): UnauthorizedException {
    const reason = refusal.ok ? 'BAD_SIGNATURE' : refusal.reason;
    const refused = this.refusalLog.refused(UNKNOWN_TENANTS, this.clock.now());
    if (refused > 0) this.logger.warn(`signed request to ${path} naming no tenant ("${tenantId}") refused, answered ${reason} as a wrong secret: ${refused} naming no tenant since the last such line`, { tenantId, reason: 'UNKNOWN_TENANT', route: path, refused });
    return unauthorized(reason, refusalMessage(reason));
  }

  /** Verifies with each secret accepted now; the first that matches gives the version. No tenant: NO_TENANT_SECRET. */
  private check(tenant: TenantInfo | null, headers: Headers, path: string, body: string): Refusal | { ok: true; version: number } {
    const now = this.clock.now();
    let failure: Refusal = { ok: false, reason: 'BAD_SIGNATURE' };
    for (const { secret, version } of tenant ? acceptedSecrets(tenant, now) : [{ secret: NO_TENANT_SECRET, version: 0 }]) {
      const result = verify(secret, headers, 'POST', path, body, now);
      if (result.ok) return { ok: true, version };
      failure = result;
      if (result.reason !== 'BAD_SIGNATURE') break; // missing headers or a stale timestamp: no secret helps
    }
    return failure;
  }

  private signedWithExpired(tenant: TenantInfo, headers: Headers, path: string, body: string): boolean {
    const previous = previousSecret(tenant);
    return previous !== null && verify(previous.secret, headers, 'POST', path, body, this.clock.now()).ok;
  }

  private bodyOf(req: RawBodyRequest): string {
    if (Buffer.isBuffer(req.rawBody)) return req.rawBody.toString('utf8');
    if (Buffer.isBuffer(req.body)) return req.body.toString('utf8');
    if (typeof req.body === 'string') return req.body;
    if (req.body !== undefined && req.body !== null && typeof req.body === 'object' && Object.keys(req.body).length > 0) {
      if (!this.warnedReserialised) {
        this.warnedReserialised = true;
        this.logger.warn(
          'signed request without its raw body: verifying the re-serialised JSON. Create the app with ' +
            'NestFactory.create(…, { rawBody: true }) (or bodyParser: false) so non-SDK executors verify too.',
        );
      }
      return JSON.stringify(req.body);
    }
    throw badRequest('body', 'empty');
  }
}

/** What a refused signature's answer says (the tenant's and the secret's problems alike: neither is told apart). */
function refusalMessage(reason: SignatureRefusalReason): string {
  return reason === 'BAD_SIGNATURE' ? 'signature refused: the tenant (x-baton-tenant) or the executor secret is wrong, or the request was changed on its way' : 'signature refused';
}

/** 401 BAD_SIGNATURE saying which check failed. */
export function unauthorized(reason: SignatureRefusalReason, message: string): UnauthorizedException {
  return new UnauthorizedException(errorBody(401, { code: 'BAD_SIGNATURE', message }, { reason }) satisfies SignatureRefusal);
}
