import { Inject, Injectable, Logger } from '@nestjs/common';
import * as oidc from 'openid-client';
import { MAX_USERNAME_LENGTH } from '@baton/domain';
import { CONSOLE_OPTIONS, ResolvedConsoleOptions } from '../../common/options';
import type { OidcOptions } from '../../common/sso-options';
import { SsoRefusedError } from './sso-refused-error';

/** What a sign-in started in this browser must present at the callback (kept in a short-lived cookie). */
export interface PendingSignIn {
  state: string;
  nonce: string;
  /** The PKCE code verifier: only its S256 challenge went to the provider. */
  verifier: string;
}

/** The user the provider vouched for. */
export interface OidcUser {
  subject: string;
  username: string;
  groups: string[];
}

/** How long the provider may take to answer one request (discovery, token, userinfo), in seconds. */
const PROVIDER_TIMEOUT_S = 5;

/**
 * OpenID Connect sign-in, authorization code flow with PKCE (S256), state and nonce, through
 * openid-client (which checks the ID token: signature against the provider's JWKS, issuer,
 * audience, expiry, nonce; the signature by enableNonRepudiationChecks). The provider's metadata is discovered at the first sign-in and kept;
 * a failed discovery is tried again at the next one.
 */
@Injectable()
export class OidcService {
  private readonly logger = new Logger('OIDC');
  private configuration: Promise<oidc.Configuration> | null = null;

  constructor(@Inject(CONSOLE_OPTIONS) private readonly consoleOptions: ResolvedConsoleOptions) {}

  get options(): OidcOptions | null {
    return this.consoleOptions.sso.oidc;
  }

  /** The provider's authorization URL to send the browser to, and what the callback must present. */
  async start(): Promise<{ url: string; pending: PendingSignIn }> {
    const options = this.required();
    const config = await this.discover(options);
    const pending: PendingSignIn = { state: oidc.randomState(), nonce: oidc.randomNonce(), verifier: oidc.randomPKCECodeVerifier() };
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: options.redirectUrl,
      scope: options.scopes,
      code_challenge: await oidc.calculatePKCECodeChallenge(pending.verifier),
      code_challenge_method: 'S256',
      state: pending.state,
      nonce: pending.nonce,
    });
    return { url: url.href, pending };
  }

  /**
   * The provider's answer at the redirect URL (`query`: its query string): the code is exchanged
   * with the PKCE verifier, the ID token checked, the user's groups read from the token or, when
   * the token has none, from userinfo.
   */
  async finish(query: string, pending: PendingSignIn | null): Promise<OidcUser> {
    const options = this.required();
    if (pending === null) throw new SsoRefusedError('the sign-in was not started in this browser or took longer than 10 minutes: start again');
    const config = await this.discover(options);
    const callbackUrl = new URL(options.redirectUrl);
    callbackUrl.search = query;
    let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
    try {
      tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: pending.verifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
    } catch (error) {
      throw new SsoRefusedError(reasonOf(error), error);
    }
    const claims = tokens.claims();
    if (!claims) throw new SsoRefusedError('the provider sent no ID token');
    let groupsClaim: unknown = claims[options.groupsClaim];
    if (groupsClaim === undefined) {
      const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub).catch((error: unknown) => {
        throw new SsoRefusedError(`userinfo could not be read: ${reasonOf(error)}`, error);
      });
      groupsClaim = info[options.groupsClaim];
    }
    const username = [claims[options.usernameClaim], claims.email, claims.sub].find((v): v is string => typeof v === 'string' && v.length > 0)!;
    return { subject: claims.sub, username: username.slice(0, MAX_USERNAME_LENGTH), groups: Array.isArray(groupsClaim) ? groupsClaim.filter((g): g is string => typeof g === 'string') : [] };
  }

  /** Where the browser goes to end its session at the provider too, or null when the provider offers no end_session_endpoint. */
  async endSessionUrl(postLogoutUrl: string): Promise<string | null> {
    const options = this.required();
    const config = await this.discover(options).catch(() => null);
    if (!config?.serverMetadata().end_session_endpoint) return null;
    return oidc.buildEndSessionUrl(config, { post_logout_redirect_uri: postLogoutUrl, client_id: options.clientId }).href;
  }

  private required(): OidcOptions {
    if (!this.options) throw new SsoRefusedError('OpenID Connect is not configured on this console (BATON_OIDC_ISSUER)');
    return this.options;
  }

  private discover(options: OidcOptions): Promise<oidc.Configuration> {
    if (this.configuration === null) {
      const issuer = new URL(options.issuer);
      const execute = issuer.protocol === 'http:' && isLoopback(issuer.hostname) ? [oidc.allowInsecureRequests] : [];
      const auth = options.clientSecret === null ? oidc.None() : oidc.ClientSecretBasic(options.clientSecret);
      this.configuration = oidc
        .discovery(issuer, options.clientId, undefined, auth, { execute, timeout: PROVIDER_TIMEOUT_S })
        .then((config) => {
          // The ID token's signature is checked against the provider's JWKS too: by default
          // openid-client trusts a token-endpoint answer on TLS alone (OIDC Core 3.1.3.7 allows
          // it), which would let a forged token through a TLS-intercepting proxy or plain http.
          oidc.enableNonRepudiationChecks(config);
          return config;
        })
        .catch((error: unknown) => {
          this.configuration = null;
          this.logger.warn(`Discovery of ${options.issuer} failed: ${reasonOf(error)}`);
          throw new SsoRefusedError(`the identity provider at ${options.issuer} cannot be reached (${reasonOf(error)}): try again later`, error);
        });
    }
    return this.configuration;
  }
}

function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\./.test(hostname);
}

/** The most telling words of an openid-client failure (the provider's error_description, the cause of a network error). */
function reasonOf(error: unknown): string {
  if (error instanceof oidc.ResponseBodyError) return `${error.error}${error.error_description ? `: ${error.error_description}` : ''}`;
  if (error instanceof oidc.AuthorizationResponseError) return `${error.error}${error.error_description ? `: ${error.error_description}` : ''}`;
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? error.cause.message : typeof error.cause === 'string' ? error.cause : '';
    return cause && !error.message.includes(cause) ? `${error.message} (${cause})` : error.message;
  }
  return String(error);
}
