import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { OperatorUsersController, TenantUsersController } from './users.controller';
import { UsersService } from './users.service';

@Module({
  imports: [AuthModule],
  controllers: [OperatorUsersController, TenantUsersController],
  providers: [UsersService],
  exports: [UsersService],
})
export class UsersModule {}
