import { describe, expect, it } from 'vitest';
import { BoundedTenantLabels } from './bounded-tenant-labels';
import { MetricsTenantLabels } from './metrics-tenant-labels';

describe('BoundedTenantLabels', () => {
  it('labels the first max tenants on their own, each time the same; the rest _other', () => {
    const labels = new BoundedTenantLabels(2, new MetricsTenantLabels(null));
    expect(['a', 'b', 'c', 'a', 'd', 'b'].map((t) => labels.label(t))).toEqual(['a', 'b', '_other', 'a', '_other', 'b']);
    expect(new BoundedTenantLabels(0, new MetricsTenantLabels(null)).label('a')).toBe('_other');
  });

  it('names no tenant with a key (no metrics token)', () => {
    expect(new BoundedTenantLabels(5, new MetricsTenantLabels('k'.repeat(64))).label('demo')).toMatch(/^t_[0-9a-f]{12}$/);
  });
});
