import { describe, expect, it } from 'vitest';
import { accessForGroups, parseGroupMap } from './sso-group-map';

describe('SSO group map', () => {
  const grants = parseGroupMap(['ops=OPERATOR', 'acme-admins=acme:TENANT_ADMIN', 'acme-all=acme:TENANT_VIEWER', 'beta=beta:TENANT_VIEWER']);

  it('parses tenant and operator grants', () => {
    expect(grants[0]).toEqual({ group: 'ops', tenantId: null, role: 'OPERATOR' });
    expect(grants[1]).toEqual({ group: 'acme-admins', tenantId: 'acme', role: 'TENANT_ADMIN' });
  });

  it('refuses an entry it cannot read, naming it', () => {
    expect(() => parseGroupMap(['acme=acme:ROOT'])).toThrow('"acme=acme:ROOT"');
    expect(() => parseGroupMap(['acme'])).toThrow('"acme"');
  });

  it('gives the first mapped group its grant, in the order of the map', () => {
    expect(accessForGroups(grants, ['acme-all', 'acme-admins'])).toEqual({ tenantId: 'acme', role: 'TENANT_ADMIN', group: 'acme-admins' });
    expect(accessForGroups(grants, ['acme-all'])).toEqual({ tenantId: 'acme', role: 'TENANT_VIEWER', group: 'acme-all' });
  });

  it('gives no access to a user of no mapped group', () => {
    expect(accessForGroups(grants, ['staff', 'everyone'])).toBeNull();
    expect(accessForGroups(grants, [])).toBeNull();
  });
});
