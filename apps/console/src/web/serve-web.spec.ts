import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleExceptionFilter } from '../common/exception.filter';
import { serveConsoleWeb } from './serve-web';

@Module({})
class EmptyModule {}

describe('serveConsoleWeb', () => {
  let dir: string;
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'baton-web-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Baton</title>');
    writeFileSync(join(dir, 'assets', 'app.js'), 'console.log(1);');
    app = await NestFactory.create(EmptyModule, { logger: false });
    const web = serveConsoleWeb(app, dir);
    expect(web?.dir).toBe(dir);
    app.useGlobalFilters(new ConsoleExceptionFilter(web!.indexHtml));
    await app.listen(0, '127.0.0.1');
    url = await app.getUrl();
  });

  afterAll(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves an asset and the SPA routes', async () => {
    const asset = await fetch(`${url}/assets/app.js`);
    expect(asset.status).toBe(200);
    expect(await asset.text()).toBe('console.log(1);');
    const page = await fetch(`${url}/tasks/3`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>Baton</title>');
  });

  it.each(['/', '/events', '/events/7', '/audit', '/runs/search'])('a page loaded directly (%s: a bookmark, a reload) → 200 with the app', async (path) => {
    const page = await fetch(`${url}${path}`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>Baton</title>');
  });

  it.each(['/assets/missing.js', '/assets/deep/er/missing.css', '/assets/%2e%2e/index.html', '/assets/..%2f..%2fpackage.json'])(
    'a missing or refused asset %s → 404 ErrorBody, no stack trace',
    async (path) => {
      const res = await fetch(`${url}${path}`);
      const text = await res.text();
      expect(res.status, text).toBe(404);
      expect(JSON.parse(text)).toMatchObject({ statusCode: 404, code: 'NOT_FOUND' });
      expect(text).not.toMatch(/\bat .*\.[jt]s:\d+|Error:/);
    },
  );

  it('an unknown page a browser loads (/nope, Accept: text/html) → 404 with the app, which shows its not-found page (issue 24)', async () => {
    const page = await fetch(`${url}/nope`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain('<title>Baton</title>');
  });

  it.each([
    ['/nope', 'application/json'],
    ['/api/nope', 'text/html'],
    ['/socket.io/nope', 'text/html'],
  ])('%s with Accept %s stays a JSON ErrorBody 404 (API clients, the API, the socket path)', async (path, accept) => {
    const res = await fetch(`${url}${path}`, { headers: { accept } });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ statusCode: 404, code: 'NOT_FOUND' });
  });
});
