import { Controller, HttpCode, Inject, Logger, Param, Post, Req } from '@nestjs/common';
import { CLOCK, type Clock } from '@baton/domain';
import { XXL_JOB_ACCESS_TOKEN_HEADER, XXL_JOB_ADMIN_PATHS, XXL_JOB_FAIL, XXL_JOB_SUCCESS, xxlCallbackParamsOf, type XxlReturn } from '@baton/protocol';
import type { RawBodyRequest } from '../security/raw-body.middleware';
import { RefusalLogThrottle } from '../security/refusal-log-throttle';
import { SignedRequestAdmission } from '../security/signed-request-admission';
import { TenantDirectory } from '../tenants/tenant-directory';
import { xxlJobTokenMatches } from './access-token';
import { XxlJobAdminService, XxlJobRefusal } from './xxl-job-admin.service';

/** A tenant's refused tokens are logged at most this often (with their count since the last line). */
const REFUSAL_LOG_EVERY_MS = 10_000;

/** What a wrong or missing token is told: xxl-job-core's own words, and nothing about the tenant. */
const WRONG_TOKEN = 'The access token is wrong.';

/**
 * XXL-JOB's admin API, one per tenant, on every engine: `POST /xxl-job-admin/<tenant>/api/<uri>`
 * with uri `registry`, `registryRemove` or `callback` — what xxl-job-core calls when its
 * `xxl.job.admin.addresses` is `<engine URL>/xxl-job-admin/<tenant>`. The tenant is in the path,
 * the token in XXL-JOB-ACCESS-TOKEN is checked against that tenant's alone (constant time), so a
 * token never reaches another tenant's executors and no token is looked up across tenants.
 *
 * Every answer is HTTP 200 with a ReturnT, as XXL-JOB's admin answers: code 200 done, code 500
 * with `msg` refused (wrong token — logged with the tenant, at most every 10 s per tenant — bad
 * registry params, unknown uri) or not processed (the executor retries its callbacks). The
 * tenant's admission bounds hold as on the signed routes (429 past them).
 */
@Controller()
export class XxlJobAdminController {
  private readonly logger = new Logger('XxlJobAdmin');
  private readonly refusalLog = new RefusalLogThrottle(REFUSAL_LOG_EVERY_MS);

  constructor(
    private readonly tenants: TenantDirectory,
    private readonly admin: XxlJobAdminService,
    private readonly admission: SignedRequestAdmission,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Post('xxl-job-admin/:tenant/api/:uri')
  @HttpCode(200)
  async api(@Param('tenant') tenantId: string, @Param('uri') uri: string, @Req() req: RawBodyRequest): Promise<XxlReturn> {
    const tenant = tenantId.length <= 64 ? await this.tenants.get(tenantId) : null;
    if (!tenant || !xxlJobTokenMatches(tenant.xxlJobAccessToken, req.headers[XXL_JOB_ACCESS_TOKEN_HEADER.toLowerCase()])) {
      const named = tenantId.slice(0, 64);
      const count = this.refusalLog.refused(named, this.clock.now());
      if (count > 0) this.logger.warn(`XXL-JOB admin request refused: wrong or missing access token (${count} since the last line)`, { tenantId: named });
      return fail(WRONG_TOKEN);
    }
    if (!Object.hasOwn(XXL_JOB_ADMIN_PATHS, uri)) return fail(`invalid request, uri-mapping(${uri.slice(0, 100)}) not found.`);
    // The route as the admission's metrics name it: one of three, never what a request made up.
    const route = `/xxl-job-admin/{tenant}${XXL_JOB_ADMIN_PATHS[uri as keyof typeof XXL_JOB_ADMIN_PATHS]}`;
    return this.admission.run(tenant.id, route, async () => {
      const body = parse(req.rawBody?.toString('utf8') ?? '');
      try {
        if (uri === 'registry') await this.admin.registry(tenant, body);
        else if (uri === 'registryRemove') await this.admin.registryRemove(tenant, body);
        else if (uri === 'callback') {
          const params = xxlCallbackParamsOf(body);
          if (!params) return fail('body: an array of callback params');
          await this.admin.callback(tenant, params);
        }
        return { code: XXL_JOB_SUCCESS, msg: null, content: null };
      } catch (err) {
        if (err instanceof XxlJobRefusal) return fail(err.message);
        this.logger.error(`XXL-JOB ${uri} not processed: ${(err as Error).message}`, { tenantId: tenant.id });
        return fail('not processed (the engine logged why): retry it');
      }
    });
  }
}

function fail(msg: string): XxlReturn {
  return { code: XXL_JOB_FAIL, msg, content: null };
}

function parse(text: string): unknown {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}
