import { afterAll, beforeAll, expect } from 'vitest';
import type { TestDatabaseHandle } from '../support/databases';
import { seedTenant, startConsole, type ConsoleTestApp, type SeededTenant } from '../console/console-test-kit';

/** What the SDK clients' examples are run against: a console, tenant acme, and the two tasks they send work to. */
export interface ClientConsole {
  t: ConsoleTestApp;
  acme: SeededTenant;
  /** `resize`, MANUAL: the examples trigger it. */
  manual: number;
  /** `ledger`, started by the event `order.paid`: the examples emit it. */
  onEvent: number;
}

/**
 * A console on `db` for the SDK clients' end-to-end tests (go-client, java-client): opened before
 * the file's tests, closed after them. Its fields are filled in by the file's beforeAll.
 */
export function useClientConsole(db: TestDatabaseHandle): ClientConsole {
  const it = {} as ClientConsole;
  beforeAll(async () => {
    it.t = await startConsole(db.dataSource);
    it.acme = await seedTenant(it.t, db.dataSource, 'acme');
    const create = async (name: string, trigger: object) => {
      const res = await it.t.http().post('/api/tasks').set(it.acme.admin).send({ name, executorApp: 'shop', handler: 'sync', trigger });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.id as number;
    };
    it.manual = await create('resize', { kind: 'MANUAL' });
    it.onEvent = await create('ledger', { kind: 'EVENT', event: 'order.paid' });
  });
  afterAll(() => it.t?.close());
  return it;
}
