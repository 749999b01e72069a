import { Module } from '@nestjs/common';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { UsersModule } from '../users/users.module';
import { EngineGroupsService } from './engine-groups.service';
import {
  OperatorApiKeysController,
  OperatorEngineGroupsController,
  OperatorEngineNodesController,
  OperatorTenantsController,
} from './operator.controller';
import { TenantsService } from './tenants.service';

@Module({
  imports: [UsersModule, ApiKeysModule],
  controllers: [
    OperatorTenantsController,
    OperatorEngineGroupsController,
    OperatorEngineNodesController,
    OperatorApiKeysController,
  ],
  providers: [TenantsService, EngineGroupsService],
  exports: [TenantsService, EngineGroupsService],
})
export class OperatorModule {}
