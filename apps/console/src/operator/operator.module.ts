import { Module } from '@nestjs/common';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { AuthModule } from '../auth/auth.module';
import { EngineGroupsService } from './engine-groups.service';
import {
  OperatorApiKeysController,
  OperatorEngineGroupsController,
  OperatorEngineNodesController,
  OperatorTenantsController,
  OperatorUsersController,
} from './operator.controller';
import { TenantsService } from './tenants.service';
import { UsersService } from './users.service';

@Module({
  imports: [AuthModule, ApiKeysModule],
  controllers: [
    OperatorTenantsController,
    OperatorEngineGroupsController,
    OperatorEngineNodesController,
    OperatorUsersController,
    OperatorApiKeysController,
  ],
  providers: [TenantsService, EngineGroupsService, UsersService],
  exports: [TenantsService, EngineGroupsService, UsersService],
})
export class OperatorModule {}
