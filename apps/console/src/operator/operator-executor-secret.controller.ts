import { Body, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { Audited } from '../audit';
import { ConsoleController } from '../common/access';
import { RotateExecutorSecretDto, RotatedExecutorSecretView } from '../executors/dto/executor-secret.dto';
import { ExecutorSecretService } from '../executors/executor-secret.service';

@ConsoleController('operator/tenants', { tag: 'operator', access: 'operator' })
export class OperatorExecutorSecretController {
  constructor(private readonly secrets: ExecutorSecretService) {}

  @Post(':id/executor-secret/rotate')
  @HttpCode(200)
  @Audited('executor-secret.rotate')
  @ApiOperation({ summary: "Rotate a tenant's executor secret: the new one in this answer; the previous one valid `overlapSeconds` more (default 86400, 0 = revoke at once)" })
  @ApiOkResponse({ type: RotatedExecutorSecretView })
  rotate(@Param('id') id: string, @Body() body: RotateExecutorSecretDto): Promise<RotatedExecutorSecretView> {
    return this.secrets.rotate(id, body.overlapSeconds);
  }
}
