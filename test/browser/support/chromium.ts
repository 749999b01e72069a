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

/** Saves a screenshot to test/artifacts/screenshots/<name>.png (a folder a reviewer can open). */
export async function shot(page: Page, name: string, fullPage = false): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage });
}

/** Collects the page's errors and console errors into `errors` (returned), so a test can assert the page had none. */
export function watchErrors(page: Page, errors: string[]): string[] {
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/Failed to load resource: the server responded with a status of (400|401|404|409)/.test(m.text())) errors.push(`console: ${m.text()}`);
  });
  return errors;
}
