import { ApiProperty } from '@nestjs/swagger';
import { LoginResponse, PrincipalView } from './login.dto';

const CSRF = 'Echo in `X-CSRF-Token` on every write authenticated by the session cookie (not needed with a bearer token or an API key)';

/** The login's answer: the bearer token for API clients, and the CSRF token of the session cookie set beside it. */
export class SessionLoginResponse extends LoginResponse {
  @ApiProperty({ description: CSRF }) csrfToken!: string;
}

/** Who am I, and — when the session cookie authenticated the request — its CSRF token (how the web console gets it after a reload). */
export class MeView extends PrincipalView {
  @ApiProperty({ type: String, nullable: true, description: 'The single sign-on method of the session\'s user (`oidc`, `ldap`); null for a password user or an API key. An `oidc` user logs out through `GET /api/auth/oidc/logout`, which ends the session at the provider too' }) sso!: string | null;
  @ApiProperty({ type: String, nullable: true, description: `${CSRF}; null when the request was not authenticated by the session cookie` }) csrfToken!: string | null;
}
