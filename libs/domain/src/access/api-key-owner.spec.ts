import { describe, expect, it } from 'vitest';
import { keyRolesBeyond, mayHoldKey } from './api-key-owner';

describe('API key owners', () => {
  it('a key never does more than its owner may do now', () => {
    expect(mayHoldKey({ role: 'OPERATOR', disabled: false }, 'TENANT_ADMIN')).toBe(true);
    expect(mayHoldKey({ role: 'TENANT_ADMIN', disabled: false }, 'TENANT_ADMIN')).toBe(true);
    expect(mayHoldKey({ role: 'TENANT_ADMIN', disabled: false }, 'TENANT_VIEWER')).toBe(true);
    expect(mayHoldKey({ role: 'TENANT_VIEWER', disabled: false }, 'TENANT_VIEWER')).toBe(true);
    expect(mayHoldKey({ role: 'TENANT_VIEWER', disabled: false }, 'TENANT_ADMIN')).toBe(false);
    expect(mayHoldKey({ role: 'OPERATOR', disabled: true }, 'TENANT_VIEWER')).toBe(false);
  });

  it('names the key roles to revoke when an owner changes', () => {
    expect(keyRolesBeyond({ role: 'TENANT_ADMIN', disabled: false })).toEqual([]);
    expect(keyRolesBeyond({ role: 'TENANT_VIEWER', disabled: false })).toEqual(['TENANT_ADMIN']);
    expect(keyRolesBeyond({ role: 'TENANT_ADMIN', disabled: true })).toEqual(['TENANT_ADMIN', 'TENANT_VIEWER']);
    expect(keyRolesBeyond(null)).toEqual(['TENANT_ADMIN', 'TENANT_VIEWER']);
  });
});
