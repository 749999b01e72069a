import { Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ConsoleController } from '../common/access';
import { TenantId } from '../common/principal';
import { LoadBoardView, OperatorLoadQuery } from './dto/load.dto';
import { LoadService } from './load.service';

const COST =
  'Counts stop at `countCap` (10,000): each is an index range read with a LIMIT, so a 100,000-run backlog costs what a 10,001-run one does and reads "10,000+" (`capped`).';

@ConsoleController('load', { tag: 'load' })
export class LoadController {
  constructor(private readonly load: LoadService) {}

  @Get()
  @ApiOperation({
    summary: `The tenant's load: runs due, held by engines, at executors, the executors' capacity, and how long the oldest due run has waited. ${COST}`,
  })
  @ApiOkResponse({ type: LoadBoardView })
  get(@TenantId() tenantId: string): Promise<LoadBoardView> {
    return this.load.ofTenant(tenantId);
  }
}

@ConsoleController('operator/load', { tag: 'operator', access: 'operator' })
export class OperatorLoadController {
  constructor(private readonly load: LoadService) {}

  @Get()
  @ApiOperation({
    summary: `Every tenant's load, the tenant whose oldest due run has waited longest first, then the tenants with nothing due by id; the first \`limit\` listed (\`tenants\`: how many there are). ${COST}`,
  })
  @ApiOkResponse({ type: LoadBoardView })
  list(@Query() query: OperatorLoadQuery): Promise<LoadBoardView> {
    return this.load.ofAll(query.limit);
  }
}
