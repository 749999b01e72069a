import { Module } from '@nestjs/common';
import { TenantDirectory } from './tenant-directory';

@Module({ providers: [TenantDirectory], exports: [TenantDirectory] })
export class TenantsModule {}
