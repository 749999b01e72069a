import { Body, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiConflictResponse, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { Audited } from '../audit';
import { ConsoleController } from '../common/access';
import { IdPipe } from '../common/id.pipe';
import { TenantId } from '../common/principal';
import { DependenciesService } from './dependencies.service';
import { CreateDependencyDto, CycleErrorView, DependencyQuery, DependencyView, UpdateDependencyDto } from './dto/dependency.dto';

@ConsoleController('dependencies', { tag: 'dependencies' })
export class DependenciesController {
  constructor(private readonly dependencies: DependenciesService) {}

  @Get()
  @ApiOperation({ summary: "The tenant's dependency edges (the DAG)" })
  @ApiOkResponse({ type: [DependencyView] })
  list(@TenantId() tenantId: string, @Query() query: DependencyQuery): Promise<DependencyView[]> {
    return this.dependencies.list(tenantId, query);
  }

  @Post()
  @Audited('dependency.create')
  @ApiOperation({ summary: 'Add an edge parent → child (task ids); a cycle is refused and named' })
  @ApiCreatedResponse({ type: DependencyView })
  @ApiConflictResponse({ type: CycleErrorView, description: 'DEPENDENCY_CYCLE (`cycle` names it, `errors` names `childTaskId`), or the edge exists (CONFLICT naming `childTaskId`)' })
  create(@TenantId() tenantId: string, @Body() body: CreateDependencyDto): Promise<DependencyView> {
    return this.dependencies.create(tenantId, body);
  }

  @Get(':id')
  @ApiOkResponse({ type: DependencyView })
  get(@TenantId() tenantId: string, @Param('id', new IdPipe()) id: number): Promise<DependencyView> {
    return this.dependencies.get(tenantId, id);
  }

  @Patch(':id')
  @Audited('dependency.update')
  @ApiOperation({ summary: "Change an edge's condition or approval step" })
  @ApiOkResponse({ type: DependencyView })
  update(
    @TenantId() tenantId: string,
    @Param('id', new IdPipe()) id: number,
    @Body() body: UpdateDependencyDto,
  ): Promise<DependencyView> {
    return this.dependencies.update(tenantId, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @Audited('dependency.delete')
  @ApiNoContentResponse()
  delete(@TenantId() tenantId: string, @Param('id', new IdPipe()) id: number): Promise<void> {
    return this.dependencies.delete(tenantId, id);
  }
}
