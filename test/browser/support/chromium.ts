import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = process.env.BATON_CHROMIUM ?? '/usr/bin/chromium';
export const SCREENSHOTS = resolve(__dirname, '../../artifacts/screenshots');

/** Debian's Chromium, headless, with a fresh profile (playwright makes a temporary user-data-dir per launch). */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install -y chromium (or set BATON_CHROMIUM)`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'],
  });
}

/**
 * Saves a screenshot to test/artifacts/screenshots/<name>.png (a folder a reviewer can open), once
 * the page has settled; CSS animations (a pop-up's slide-in, a row's flash) are shown at their end.
 */
export async function shot(page: Page, name: string, fullPage = false): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await settled(page);
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage, animations: 'disabled' });
}

/** In the page: whether no API request is in flight, and none was sent, across two frames and the task after them. */
const QUIET_ACROSS_A_FRAME = `new Promise((resolve) => {
  const html = document.documentElement;
  const sent = html.dataset.apiSent;
  requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => resolve(html.dataset.apiPending === '0' && html.dataset.apiSent === sent))));
})`;

/**
 * Waits until the console page has settled: no API request in flight and none sent across a frame
 * and the task after it (the loads a page starts once its first answers are drawn included), as the
 * SPA counts them on `<html data-api-pending data-api-sent>` (apps/console/web/src/shared/api.ts).
 * A page that is not the console's (an identity provider's sign-in form) has nothing to wait for.
 */
export async function settled(page: Page): Promise<void> {
  if (!(await page.evaluate<boolean>("document.documentElement.hasAttribute('data-api-sent')"))) return;
  for (;;) {
    await page.locator('html[data-api-pending="0"]').waitFor({ state: 'attached' });
    const quiet = await page.evaluate<boolean>(QUIET_ACROSS_A_FRAME);
    if (quiet) return;
  }
}

/** Collects the page's errors and console errors into `errors` (returned), so a test can assert the page had none. */
export function watchErrors(page: Page, errors: string[]): string[] {
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/Failed to load resource: the server responded with a status of (400|401|404|409)/.test(m.text())) errors.push(`console: ${m.text()}`);
  });
  return errors;
}
