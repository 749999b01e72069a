import { Inject, Injectable, Logger, UnauthorizedException } from '@nestjs/common';
import { CLOCK, type Clock } from '@baton/domain';
import { errorBody, SIGNATURE_HEADERS, verify, type SignatureRefusal, type SignatureRefusalReason } from '@baton/protocol';
import { TenantDirectory, type TenantInfo } from '../tenants/tenant-directory';
import { badRequest } from './bad-request';
import type { RawBodyRequest } from './raw-body.middleware';
import { ReplayGuard } from './replay-guard';

export interface VerifiedRequest {
  tenant: TenantInfo;
  /** The body as signed (UTF-8 text). */
  body: string;
}

/** A secret may have been rotated in the console: re-read the tenant once if cached longer than this. */
const REFRESH_ON_FAILURE_AFTER_MS = 1_000;

/**
 * Verifies a request an executor signed (callbacks, heartbeats): tenant from `x-baton-tenant`,
 * HMAC over the raw body with that tenant's executor secret, timestamp within the skew window,
 * signature not accepted before on this node. Any failure → 401 with the reason; the request
 * changes nothing. The signed path is the protocol path (PATHS), not the URL the request came
 * in on, so a route prefix or a proxy does not break it.
 */
@Injectable()
export class SignedRequests {
  private readonly logger = new Logger('SignedRequests');
  private warnedReserialised = false;

  constructor(
    private readonly tenants: TenantDirectory,
    private readonly replays: ReplayGuard,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async verify(req: RawBodyRequest, path: string): Promise<VerifiedRequest> {
    const tenantId = req.headers[SIGNATURE_HEADERS.tenant];
    if (typeof tenantId !== 'string' || tenantId.length === 0 || tenantId.length > 64) throw unauthorized('MISSING_HEADERS', 'x-baton-tenant is missing');
    const body = this.bodyOf(req);
    let tenant = await this.tenants.get(tenantId);
    if (!tenant) throw unauthorized('UNKNOWN_TENANT', 'unknown tenant');
    const headers = req.headers as Record<string, string | string[] | undefined>;
    let result = verify(tenant.executorSecret, headers, 'POST', path, body, this.clock.now());
    if (!result.ok && result.reason === 'BAD_SIGNATURE' && this.tenants.ageOf(tenantId) > REFRESH_ON_FAILURE_AFTER_MS) {
      tenant = await this.tenants.get(tenantId, { maxAgeMs: 0 });
      if (!tenant) throw unauthorized('UNKNOWN_TENANT', 'unknown tenant');
      result = verify(tenant.executorSecret, headers, 'POST', path, body, this.clock.now());
    }
    if (!result.ok) throw unauthorized(result.reason, 'signature refused');
    const signature = String(headers[SIGNATURE_HEADERS.signature]);
    const timestamp = Number(headers[SIGNATURE_HEADERS.timestamp]);
    if (!this.replays.accept(signature, timestamp, this.clock.now())) throw unauthorized('REPLAYED', 'signature already used');
    return { tenant, body };
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

/** 401 BAD_SIGNATURE saying which check failed. */
export function unauthorized(reason: SignatureRefusalReason, message: string): UnauthorizedException {
  return new UnauthorizedException(errorBody(401, { code: 'BAD_SIGNATURE', message }, { reason }) satisfies SignatureRefusal);
}
