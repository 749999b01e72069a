import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength, MinLength } from 'class-validator';

export class LdapLoginDto {
  @ApiProperty({ example: 'alice', description: 'The directory login name (its tenant comes from its groups)' })
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  username!: string;

  // MinLength(1): an LDAP bind with an empty password is an anonymous bind, which "succeeds".
  @ApiProperty({ example: 'change-me' })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  password!: string;
}

export class OidcMethodView {
  @ApiProperty({ description: 'The provider\'s name for the "Sign in with …" button' }) name!: string;
  @ApiProperty({ example: '/api/auth/oidc/start', description: 'Where the browser goes to sign in' }) startUrl!: string;
}

export class SsoMethodsView {
  @ApiProperty({ type: OidcMethodView, nullable: true, description: 'OpenID Connect sign-in, or null when not configured' }) oidc!: OidcMethodView | null;
  @ApiProperty({ description: 'Whether LDAP sign-in (`POST /api/auth/ldap/login`) is configured' }) ldap!: boolean;
}
