import { Module } from '@nestjs/common';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { ExecutorsModule } from '../executors/executors.module';
import { UsersModule } from '../users/users.module';
import { EngineGroupsService } from './engine-groups.service';
import { OperatorExecutorSecretController } from './operator-executor-secret.controller';
import {
  OperatorApiKeysController,
  OperatorEngineGroupsController,
  OperatorEngineNodesController,
  OperatorTenantsController,
} from './operator.controller';
import { TenantsService } from './tenants.service';

@Module({
  imports: [UsersModule, ApiKeysModule, ExecutorsModule],
  controllers: [
    OperatorTenantsController,
    OperatorEngineGroupsController,
    OperatorEngineNodesController,
    OperatorApiKeysController,
    OperatorExecutorSecretController,
  ],
  providers: [TenantsService, EngineGroupsService],
  exports: [TenantsService, EngineGroupsService],
})
export class OperatorModule {}
