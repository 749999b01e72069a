import { Body, Get, Header, HttpCode, Post } from '@nestjs/common';
import { ApiConflictResponse, ApiOkResponse, ApiOperation, ApiProduces, ApiTooManyRequestsResponse } from '@nestjs/swagger';
import { HEAVY_WORK_BUSY } from '../common/tenant-heavy-work';
import { Audited, NotAudited } from '../audit';
import { ConsoleController, Public, RouteAccess } from '../common/access';
import { CurrentPrincipal, TenantId, type Principal } from '../common/principal';
import { isAllowed } from '../auth/auth.guard';
import { seesSecretValues } from '../auth/secret-values';
import { CONFIG_FILE_SCHEMA } from './config-file.schema';
import { ConfigService } from './config.service';
import { CycleErrorView } from '../dependencies/dto/dependency.dto';
import { ConfigFileDto, ConfigPlanView } from './dto/config.dto';

const FILE_CYCLE = "DEPENDENCY_CYCLE: the file's dependencies, with the tenant's it keeps, would close a cycle (`cycle` names it, `errors` the file's edge that closes it: `dependencies[i]`)";

@ConsoleController('config', { tag: 'config', access: 'tenant' })
export class ConfigController {
  constructor(private readonly config: ConfigService) {}

  @Get('export')
  @ApiTooManyRequestsResponse({ description: HEAVY_WORK_BUSY })
  @Header('Content-Type', 'application/yaml; charset=utf-8')
  @ApiProduces('application/yaml')
  @ApiOperation({ summary: "The tenant's tasks, dependencies, calendars, webhooks (a TENANT_ADMIN's export only) and retention as one tasks-as-code YAML file (stable order, names not ids, none of Baton's own secrets; the tasks' params as they are, secret-named values in clear to an admin and redacted in a viewer's export, as GET /api/tasks shows them)" })
  @ApiOkResponse({ description: 'The YAML file', schema: { type: 'string' } })
  export(@TenantId() tenantId: string, @CurrentPrincipal() principal: Principal): Promise<string> {
    // What the principal may list, no more: webhooks (their URLs are a chat tool's credential) are GET /api/webhooks's, a TENANT_ADMIN's;
    // secret-named values are shown as GET /api/tasks shows them to the principal.
    return this.config.export(tenantId, { webhooks: isAllowed(principal, 'tenant-admin', 'GET'), secretValues: seesSecretValues(principal) });
  }

  @Get('schema')
  @Public()
  @ApiOperation({ summary: 'The JSON Schema of the tasks-as-code file (for editors; also docs/tasks-as-code.schema.json)' })
  @ApiOkResponse({ description: 'JSON Schema (draft 2020-12)', schema: { type: 'object' } })
  schema(): object {
    return CONFIG_FILE_SCHEMA;
  }

  @Post('plan')
  @ApiTooManyRequestsResponse({ description: HEAVY_WORK_BUSY })
  @RouteAccess('tenant-admin')
  @HttpCode(200)
  @NotAudited('a preview: it says what apply would change and changes nothing')
  @ApiOperation({ summary: 'What applying the file would change: creations, updates (field by field, with the next fire times of tasks whose schedule changes) and, with prune, deletions' })
  @ApiOkResponse({ type: ConfigPlanView })
  @ApiConflictResponse({ type: CycleErrorView, description: FILE_CYCLE })
  @Header('Content-Type', 'application/json; charset=utf-8')
  async plan(@TenantId() tenantId: string, @Body() body: ConfigFileDto): Promise<string> {
    return planView(await this.config.plan(tenantId, body.file, body.prune ?? false), false);
  }

  @Post('apply')
  @ApiTooManyRequestsResponse({ description: HEAVY_WORK_BUSY })
  @RouteAccess('tenant-admin')
  @HttpCode(200)
  @Audited('config.apply')
  @ApiOperation({ summary: 'Apply the file in one transaction: all of it or, at the first refusal (400/409 naming the place in the file), nothing. The tasks it writes become managed' })
  @ApiOkResponse({ type: ConfigPlanView })
  @ApiConflictResponse({ type: CycleErrorView, description: `${FILE_CYCLE}; or CONFLICT naming \`tasks[i]\`: the task was changed meanwhile (plan again)` })
  @Header('Content-Type', 'application/json; charset=utf-8')
  async apply(@TenantId() tenantId: string, @Body() body: ConfigFileDto): Promise<string> {
    return planView(await this.config.apply(tenantId, body.file, body.prune ?? false), true);
  }
}

/** A ConfigPlanView around changes the worker wrote as JSON text: sent as it is, never parsed again on the event loop (5,000 changes are 7 MB of it). */
function planView(changes: string, applied: boolean): string {
  return `{"changes":${changes},"applied":${applied}}`;
}
