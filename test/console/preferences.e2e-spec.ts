/** A console user's language, time zone and theme (issue 24): kept with the user, checked, not an API key's. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DATABASES, useTestDatabase } from '../support/databases';
import { seedOperator, seedTenant, startConsole, type ConsoleTestApp, type SeededTenant } from './console-test-kit';

describe.each(TEST_DATABASES)('user preferences through the console API on %s', (kind) => {
  const db = useTestDatabase(kind);
  let t: ConsoleTestApp;
  let acme: SeededTenant;

  beforeAll(async () => {
    t = await startConsole(db.dataSource);
    acme = await seedTenant(t, db.dataSource, 'acme');
  });
  afterAll(() => t?.close());

  it('starts with the browser’s (all null), keeps what a user sets (a viewer too), canonical zone spelling', async () => {
    expect((await t.http().get('/api/me/preferences').set(acme.viewer)).body).toEqual({ language: null, timeZone: null, theme: null });
    const put = await t.http().put('/api/me/preferences').set(acme.viewer).send({ language: 'zh-CN', timeZone: 'asia/shanghai', theme: 'dark' });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ language: 'zh-CN', timeZone: 'Asia/Shanghai', theme: 'dark' });
    expect((await t.http().get('/api/me/preferences').set(acme.viewer)).body).toEqual(put.body);
    // Another user's are their own.
    expect((await t.http().get('/api/me/preferences').set(acme.admin)).body).toEqual({ language: null, timeZone: null, theme: null });
    // The whole set: an omitted field goes back to the browser's.
    expect((await t.http().put('/api/me/preferences').set(acme.viewer).send({ theme: 'light' })).body).toEqual({ language: null, timeZone: null, theme: 'light' });
    const operator = await seedOperator(t, db.dataSource);
    expect((await t.http().put('/api/me/preferences').set(operator).send({ language: 'en' })).status).toBe(200);
  });

  it('names a bad field; an API key has no preferences (403)', async () => {
    const badZone = await t.http().put('/api/me/preferences').set(acme.admin).send({ timeZone: 'Mars/Olympus' });
    expect(badZone.status).toBe(400);
    expect(badZone.body.errors).toEqual([expect.objectContaining({ field: 'timeZone' })]);
    const badLanguage = await t.http().put('/api/me/preferences').set(acme.admin).send({ language: 'fr' });
    expect(badLanguage.status).toBe(400);
    expect(badLanguage.body.errors[0].field).toBe('language');
    expect((await t.http().get('/api/me/preferences').set(acme.adminKey)).status).toBe(403);
  });
});
