import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { BodylessRoutes } from '../common/bodyless-routes';
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
  // Global guards run in the order they are listed: who the caller is first, then its body's fit.
  providers: [AuthService, SsoAccountsService, OidcService, LdapService, { provide: APP_GUARD, useClass: ConsoleAuthGuard }, { provide: APP_GUARD, useClass: BodylessRoutes }],
  exports: [AuthService],
})
export class AuthModule {}
