import { ConfigError, type ProcessConfig } from '@baton/config';
import { parseGroupMap, type GroupGrant } from '@baton/domain';

/** OpenID Connect sign-in (authorization code with PKCE). */
export interface OidcOptions {
  issuer: string;
  clientId: string;
  /** Null: a public client, PKCE alone. */
  clientSecret: string | null;
  /** `<console URL>/api/auth/oidc/callback`, as registered at the provider. */
  redirectUrl: string;
  /** Space separated. */
  scopes: string;
  groupsClaim: string;
  usernameClaim: string;
  /** The provider's name on the login page. */
  name: string;
}

/** LDAP sign-in: the user binds with its own password, then its groups are searched. */
export interface LdapOptions {
  url: string;
  /** `{username}` is replaced by the escaped login name. */
  userDn: string;
  groupBase: string;
  /** `{dn}` is replaced by the escaped DN of the user. */
  groupFilter: string;
  groupAttribute: string;
}

export interface SsoOptions {
  oidc: OidcOptions | null;
  ldap: LdapOptions | null;
  /** Which groups give which access (both methods). */
  groupMap: GroupGrant[];
}

export const NO_SSO: SsoOptions = { oidc: null, ldap: null, groupMap: [] };

/** The single sign-on variables through the schema; a method half configured is a start error naming what is missing. */
export function readSsoOptions(values: ProcessConfig): SsoOptions {
  const issuer = values.optionalString('BATON_OIDC_ISSUER');
  const ldapUrl = values.optionalString('BATON_LDAP_URL');
  const required = (name: string, method: string): string => {
    const value = values.optionalString(name);
    if (!value) throw new ConfigError(name, undefined, `required with ${method}`);
    return value;
  };
  return {
    oidc: issuer
      ? {
          issuer,
          clientId: required('BATON_OIDC_CLIENT_ID', 'BATON_OIDC_ISSUER'),
          clientSecret: values.optionalString('BATON_OIDC_CLIENT_SECRET') ?? null,
          redirectUrl: required('BATON_OIDC_REDIRECT_URL', 'BATON_OIDC_ISSUER'),
          scopes: values.string('BATON_OIDC_SCOPES'),
          groupsClaim: values.string('BATON_OIDC_GROUPS_CLAIM'),
          usernameClaim: values.string('BATON_OIDC_USERNAME_CLAIM'),
          name: values.string('BATON_OIDC_NAME'),
        }
      : null,
    ldap: ldapUrl
      ? {
          url: ldapUrl,
          userDn: required('BATON_LDAP_USER_DN', 'BATON_LDAP_URL'),
          groupBase: required('BATON_LDAP_GROUP_BASE', 'BATON_LDAP_URL'),
          groupFilter: values.string('BATON_LDAP_GROUP_FILTER'),
          groupAttribute: values.string('BATON_LDAP_GROUP_ATTRIBUTE'),
        }
      : null,
    groupMap: parseGroupMap(values.list('BATON_SSO_GROUP_MAP')),
  };
}
