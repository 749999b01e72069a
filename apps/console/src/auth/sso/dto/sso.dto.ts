import { ApiProperty } from '@nestjs/swagger';
import { CredentialsDto } from '../../dto/login.dto';

/** An LDAP login: the user binds as itself with these. */
export class LdapLoginDto extends CredentialsDto {}

export class OidcMethodView {
  @ApiProperty({ description: 'The provider\'s name for the "Sign in with …" button' }) name!: string;
  @ApiProperty({ example: '/api/auth/oidc/start', description: 'Where the browser goes to sign in' }) startUrl!: string;
}

export class SsoMethodsView {
  @ApiProperty({ type: OidcMethodView, nullable: true, description: 'OpenID Connect sign-in, or null when not configured' }) oidc!: OidcMethodView | null;
  @ApiProperty({ description: 'Whether LDAP sign-in (`POST /api/auth/ldap/login`) is configured' }) ldap!: boolean;
}
