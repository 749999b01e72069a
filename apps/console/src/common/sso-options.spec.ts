import { describe, expect, it } from 'vitest';
import { ConfigError, ProcessConfig } from '@baton/config';
import { readSsoOptions } from './sso-options';

describe('single sign-on configuration', () => {
  it('reads the OIDC and LDAP variables and the group map', () => {
    const sso = readSsoOptions(
      ProcessConfig.load('console', {
        BATON_DB_URL: 'sqlite:x',
        BATON_OIDC_ISSUER: 'https://login.example.com/realms/acme',
        BATON_OIDC_CLIENT_ID: 'baton',
        BATON_OIDC_REDIRECT_URL: 'https://baton.example.com/api/auth/oidc/callback',
        BATON_LDAP_URL: 'ldap://127.0.0.1:389',
        BATON_LDAP_USER_DN: 'uid={username},ou=people,dc=example,dc=com',
        BATON_LDAP_GROUP_BASE: 'ou=groups,dc=example,dc=com',
        BATON_SSO_GROUP_MAP: 'ops=OPERATOR,acme-admins=acme:TENANT_ADMIN',
      }),
    );
    expect(sso.oidc).toMatchObject({ clientSecret: null, scopes: 'openid profile email groups', groupsClaim: 'groups', name: 'single sign-on' });
    expect(sso.ldap).toMatchObject({ groupFilter: '(&(objectClass=groupOfNames)(member={dn}))', groupAttribute: 'cn' });
    expect(sso.groupMap).toEqual([
      { group: 'ops', tenantId: null, role: 'OPERATOR' },
      { group: 'acme-admins', tenantId: 'acme', role: 'TENANT_ADMIN' },
    ]);
  });

  it('names what a half-configured method lacks, and a bad group map', () => {
    expect(() => readSsoOptions(ProcessConfig.load('console', { BATON_DB_URL: 'sqlite:x', BATON_OIDC_ISSUER: 'https://idp.example.com' }))).toThrow(ConfigError);
    expect(() => readSsoOptions(ProcessConfig.load('console', { BATON_DB_URL: 'sqlite:x', BATON_OIDC_ISSUER: 'https://idp.example.com' }))).toThrow(/BATON_OIDC_CLIENT_ID/);
    expect(() => ProcessConfig.load('console', { BATON_DB_URL: 'sqlite:x', BATON_SSO_GROUP_MAP: 'acme=acme:ROOT' })).toThrow(/BATON_SSO_GROUP_MAP/);
  });
});
