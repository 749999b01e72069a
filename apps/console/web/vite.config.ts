import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/**
 * The web console (React SPA). `npm run build` builds it into dist/console-web, which the
 * console serves at `/` (same origin as the API). `npx vite --config apps/console/web/vite.config.ts`
 * runs a dev server that proxies /api and /socket.io to a console on :8080 (`npm start`).
 */
const api = process.env.BATON_CONSOLE_URL ?? 'http://127.0.0.1:8080';

/**
 * The libs' browser-safe modules the SPA may import (`@baton/domain/types`, …), declared once in
 * tsconfig.json's `paths` (which the type checker uses) and given to Vite as exact aliases, so
 * nothing else of a lib (Node-only code) can reach the bundle.
 */
function libAliases(): Array<{ find: RegExp; replacement: string }> {
  const tsconfig = JSON.parse(readFileSync(resolve(__dirname, 'tsconfig.json'), 'utf8')) as { compilerOptions: { paths: Record<string, string[]> } };
  return Object.entries(tsconfig.compilerOptions.paths).map(([name, [target]]) => ({
    find: new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`),
    replacement: resolve(__dirname, target),
  }));
}

export default defineConfig({
  root: __dirname,
  base: '/',
  plugins: [react()],
  resolve: { alias: libAliases() },
  build: {
    outDir: resolve(__dirname, '../../../dist/console-web'),
    emptyOutDir: true,
    sourcemap: true,
    chunkSizeWarningLimit: 1500,
  },
  server: {
    proxy: {
      '/api': api,
      '/socket.io': { target: api, ws: true },
    },
  },
});
