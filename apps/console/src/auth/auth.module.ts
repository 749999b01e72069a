import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AuthController } from './auth.controller';
import { ConsoleAuthGuard } from './auth.guard';
import { AuthService } from './auth.service';
import { LdapService } from './sso/ldap.service';
import { OidcController } from './sso/oidc.controller';
import { OidcService } from './sso/oidc.service';
import { SsoAccountsService } from './sso/sso-accounts.service';
import { SsoController } from './sso/sso.controller';

@Module({
  controllers: [AuthController, SsoController, OidcController],
  providers: [AuthService, SsoAccountsService, OidcService, LdapService, { provide: APP_GUARD, useClass: ConsoleAuthGuard }],
  exports: [AuthService],
})
export class AuthModule {}
