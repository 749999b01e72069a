import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ProcessConfig } from '@baton/config';
import { EngineGroupEntity, openDatabase, TenantEntity } from '@baton/persistence';
import { demoLogins } from '../../apps/embedded/src/demo-seed';
import { startEmbedded, type EmbeddedBaton } from '../../apps/embedded/src/start-embedded';
import { startTestProvider, type TestProvider } from '../support/oidc-test-provider';
import { launchChromium, shot, watchErrors } from './support/chromium';
import { ensureWebBuild } from './support/web-build';

/**
 * OpenID Connect sign-in in a real browser: the embedded app configured by the same variables
 * as docs/MANUAL.md (BATON_OIDC_*, BATON_SSO_GROUP_MAP), a real provider (oidc-provider) on
 * loopback. The login page's "Sign in with …" button goes to the provider, its form comes back
 * to the console logged in; logout ends the session at the provider too; a user of no mapped
 * group lands back on the login page with the reason.
 */
const PROVIDER_PORT = 18802;
const CONSOLE_PORT = 18812;
const CONSOLE_URL = `http://127.0.0.1:${CONSOLE_PORT}`;

/** The tenant `demo` alone (the embedded app seeds no demo into a database that has a tenant): the SSO users come from the provider. */
async function seedTenantDemo(databaseUrl: string): Promise<void> {
  const dataSource = await openDatabase(databaseUrl);
  try {
    await dataSource.getRepository(EngineGroupEntity).insert({ name: 'default', description: '', createdAt: Date.now() });
    await dataSource.getRepository(TenantEntity).insert({ id: 'demo', name: 'Demo tenant', engineGroup: 'default', executorSecret: 'demo-executor-secret', ratePerSec: 100, burst: 200, createdAt: Date.now() });
  } finally {
    await dataSource.destroy();
  }
}

// One browser's story, in order (it signs in, then logs out of Baton and the provider, then signs in as
// another user): a shuffled run (--sequence.shuffle) keeps its order; the files around it still move.
describe('OpenID Connect sign-in (Chromium)', { shuffle: false }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'baton-oidc-browser-'));
  let provider: TestProvider;
  let baton: EmbeddedBaton;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    ensureWebBuild();
    provider = await startTestProvider({
      port: PROVIDER_PORT,
      clientId: 'baton-console',
      clientSecret: 'baton-console-secret',
      redirectUrl: `${CONSOLE_URL}/api/auth/oidc/callback`,
      postLogoutUrl: `${CONSOLE_URL}/login`,
      users: {
        hana: { password: 'hana-pw', username: 'hana', email: 'hana@example.test', groups: ['baton-demo-admins'] },
        ivan: { password: 'ivan-pw', username: 'ivan', email: 'ivan@example.test', groups: ['sales'] },
      },
    });
    const values = ProcessConfig.load('embedded', {
      BATON_OIDC_ISSUER: provider.issuer,
      BATON_OIDC_CLIENT_ID: 'baton-console',
      BATON_OIDC_CLIENT_SECRET: 'baton-console-secret',
      BATON_OIDC_REDIRECT_URL: `${CONSOLE_URL}/api/auth/oidc/callback`,
      BATON_OIDC_NAME: 'Test IdP',
      BATON_SSO_GROUP_MAP: 'baton-demo-admins=demo:TENANT_ADMIN,baton-demo-viewers=demo:TENANT_VIEWER',
    });
    await seedTenantDemo(`sqlite:${join(dir, 'baton.sqlite')}`);
    baton = await startEmbedded({ databaseUrl: `sqlite:${join(dir, 'baton.sqlite')}`, host: '127.0.0.1', port: CONSOLE_PORT, values }, demoLogins({}));
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    page.setDefaultTimeout(10_000);
    watchErrors(page, errors);
  }, 120_000);

  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail' && page) await shot(page, `failed-oidc-${ctx.task.name.slice(0, 40).replace(/[^a-z0-9]+/gi, '-')}`).catch(() => undefined);
  });

  afterAll(async () => {
    await browser?.close();
    await baton?.close();
    await provider?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('signs in through the provider from the login page and lands on the tasks, logged in', async () => {
    await page.goto(`${CONSOLE_URL}/login`);
    const button = page.getByRole('link', { name: 'Sign in with Test IdP' });
    await button.waitFor();
    await shot(page, 'sso-login-page');
    await button.click();
    await page.waitForURL(`${provider.issuer}/interaction/**`);
    await page.fill('input[name="login"]', 'hana');
    await page.fill('input[name="password"]', 'hana-pw');
    await shot(page, 'sso-provider-form');
    await page.click('button[type="submit"]');
    await page.waitForURL(`${CONSOLE_URL}/tasks`);
    await expect(page.locator('.userbox .user').textContent()).resolves.toContain('hana @ demo');
    await shot(page, 'sso-signed-in');
    const me = await page.evaluate(async () => (await fetch('/api/auth/me')).json());
    expect(me).toMatchObject({ username: 'hana', role: 'TENANT_ADMIN', tenantId: 'demo', sso: 'oidc' });
  });

  it('logs out of Baton and of the provider', async () => {
    await page.getByRole('button', { name: 'Log out' }).click();
    // oidc-provider asks before ending its session (no id_token_hint): that page is the provider's.
    await page.waitForURL(`${provider.issuer}/session/end**`);
    await page.locator('button[autofocus], button').first().click();
    await page.waitForURL(`${CONSOLE_URL}/login**`);
    const me = await page.evaluate(async () => (await fetch('/api/auth/me')).status);
    expect(me).toBe(401);
    // The provider's session is gone too: signing in again shows its form.
    await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();
    await page.waitForURL(`${provider.issuer}/interaction/**`);
    await expect(page.locator('input[name="login"]').isVisible()).resolves.toBe(true);
  });

  it('brings a user of no mapped group back to the login page with the reason', async () => {
    await page.fill('input[name="login"]', 'ivan');
    await page.fill('input[name="password"]', 'ivan-pw');
    await page.click('button[type="submit"]');
    await page.waitForURL(`${CONSOLE_URL}/login?sso_error=**`);
    await expect(page.getByRole('alert').first().textContent()).resolves.toContain('None of your groups gives access to Baton');
    await shot(page, 'sso-refused');
    // Script errors of the console's pages (the provider's own pages may fetch what loopback cannot resolve).
    expect(errors.filter((e) => e.startsWith('pageerror'))).toEqual([]);
  });
});
