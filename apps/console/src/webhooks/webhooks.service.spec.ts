import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import { ManualClock } from '@baton/domain';
import type { ResolveAll } from '@baton/protocol';
import { WebhooksService } from './webhooks.service';

/** A data source whose tenants have no networks: all the create path reads before the URL check. */
const noNetworks = { manager: { findOneBy: async () => ({ id: 't', executorNetworks: null }) } } as unknown as DataSource;

describe('WebhooksService: a tenant\'s name lookups (issue 21: they hold one of libuv\'s 4 threads each)', () => {
  it("runs one tenant's lookups one at a time, beside another tenant's", async () => {
    const inFlight = new Map<string, number>();
    const most = new Map<string, number>();
    const order: string[] = [];
    // Slow names of two tenants (`a-…`, `b-…`), each resolving to a private address: refused by default.
    const resolve: ResolveAll = (hostname, _options, callback) => {
      const tenant = hostname[0];
      inFlight.set(tenant, (inFlight.get(tenant) ?? 0) + 1);
      most.set(tenant, Math.max(most.get(tenant) ?? 0, inFlight.get(tenant)!));
      order.push(`start ${hostname.split(".")[0]}`);
      setTimeout(() => {
        inFlight.set(tenant, inFlight.get(tenant)! - 1);
        order.push(`end ${hostname.split(".")[0]}`);
        callback(null, [{ address: '10.0.0.1', family: 4 } as LookupAddress]);
      }, 30);
    };
    const service = new WebhooksService(noNetworks, new ManualClock(0), resolve);
    const create = (tenant: string, host: string) => service.create(tenant, { name: host, url: `http://${host}.example/hook` }).then(
      () => 'created',
      (err: { response?: { errors?: Array<{ field: string }> } }) => err.response?.errors?.map((e) => e.field).join(),
    );
    const answers = await Promise.all([create('a', 'a-1'), create('a', 'a-2'), create('a', 'a-3'), create('b', 'b-1')]);
    expect(answers).toEqual(['url', 'url', 'url', 'url']);
    expect(most.get('a')).toBe(1);
    // b's lookup did not wait for a's three.
    expect(order.indexOf('start b-1')).toBeLessThan(order.indexOf('end a-1'));
  });
});
