import { Body, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiConflictResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { Audited } from '../audit';
import { ConsoleController } from '../common/access';
import { IdPipe } from '../common/id.pipe';
import { CurrentPrincipal, Principal, TenantId } from '../common/principal';
import { seesSecretValues } from '../auth/secret-values';
import { ExecutorConnectionView, RotateExecutorSecretDto, RotatedExecutorSecretView } from './dto/executor-secret.dto';
import { ExecutorQuery, ExecutorView } from './dto/executor.dto';
import { ExecutorSecretService } from './executor-secret.service';
import { ExecutorsService } from './executors.service';
import { SetXxlJobTokenDto, XxlJobTokenView } from './dto/xxl-job-token.dto';
import { XxlJobTokenService } from './xxl-job-token.service';

@ConsoleController('executors', { tag: 'executors' })
export class ExecutorsController {
  constructor(
    private readonly executors: ExecutorsService,
    private readonly secrets: ExecutorSecretService,
    private readonly xxlJobTokens: XxlJobTokenService,
  ) {}

  @Get()
  @ApiOperation({ summary: "The tenant's executors (registered by their heartbeats) and their load (a viewer sees the values a handler's params schema gives secret-named params as [redacted])" })
  @ApiOkResponse({ type: [ExecutorView] })
  list(@TenantId() tenantId: string, @Query() query: ExecutorQuery, @CurrentPrincipal() principal: Principal): Promise<ExecutorView[]> {
    return this.executors.list(tenantId, query, { secretValues: seesSecretValues(principal) });
  }

  @Get('connection')
  @ApiOperation({ summary: 'What an executor needs to connect: tenant id, engine URLs, app names, and the state of the executor secret (not the secret)' })
  @ApiOkResponse({ type: ExecutorConnectionView })
  connection(@TenantId() tenantId: string): Promise<ExecutorConnectionView> {
    return this.secrets.connection(tenantId);
  }

  @Post('secret/rotate')
  @HttpCode(200)
  @ApiOperation({
    summary:
      "Rotate the tenant's executor secret (TENANT_ADMIN): the new secret is in this answer only; the previous one stays valid `overlapSeconds` (default 86400, 0 = revoke at once)",
  })
  @Audited('executor-secret.rotate')
  @ApiOkResponse({ type: RotatedExecutorSecretView })
  rotate(@TenantId() tenantId: string, @Body() body: RotateExecutorSecretDto): Promise<RotatedExecutorSecretView> {
    return this.secrets.rotate(tenantId, body.overlapSeconds);
  }

  @Post('xxl-job-token')
  @HttpCode(200)
  @ApiOperation({
    summary:
      "Set the tenant's XXL-JOB access token (TENANT_ADMIN): the token its xxl-job-core executors use (`xxl.job.accessToken`) with `xxl.job.admin.addresses` = engine URL + `adminPath`. No token given: a new random one; null: none (every XXL-JOB request refused)",
  })
  @Audited('xxl-job-token.set')
  @ApiOkResponse({ type: XxlJobTokenView })
  setXxlJobToken(@TenantId() tenantId: string, @Body() body: SetXxlJobTokenDto): Promise<XxlJobTokenView> {
    return this.xxlJobTokens.set(tenantId, body.token);
  }

  @Get(':id')
  @ApiOkResponse({ type: ExecutorView })
  get(@TenantId() tenantId: string, @Param('id', new IdPipe()) id: number, @CurrentPrincipal() principal: Principal): Promise<ExecutorView> {
    return this.executors.get(tenantId, id, { secretValues: seesSecretValues(principal) });
  }

  @Delete(':id')
  @HttpCode(204)
  @Audited('executor.delete')
  @ApiOperation({ summary: "Remove a DOWN executor (stopped, or silent): its row goes, the runs that went to it stay (TENANT_ADMIN)" })
  @ApiNoContentResponse()
  @ApiConflictResponse({ description: 'The executor is UP (errors name `state`)' })
  async remove(@TenantId() tenantId: string, @Param('id', new IdPipe()) id: number): Promise<void> {
    await this.executors.remove(tenantId, id);
  }
}
