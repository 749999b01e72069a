import { describe, expect, it } from 'vitest';
import { BoundedTenantLabels } from './bounded-tenant-labels';

describe('BoundedTenantLabels', () => {
  it('labels the first max tenants on their own, each time the same; the rest _other', () => {
    const labels = new BoundedTenantLabels(2, 'token');
    expect(['a', 'b', 'c', 'a', 'd', 'b'].map((t) => labels.label(t))).toEqual(['a', 'b', '_other', 'a', '_other', 'b']);
    expect(new BoundedTenantLabels(0, 'token').label('a')).toBe('_other');
  });

  it('names no tenant without a metrics token', () => {
    expect(new BoundedTenantLabels(5, null).label('demo')).toMatch(/^t_[0-9a-f]{12}$/);
  });
});
