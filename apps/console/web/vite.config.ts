import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/**
 * The web console (React SPA). `npm run build` builds it into dist/console-web, which the
 * console serves at `/` (same origin as the API). `npx vite --config apps/console/web/vite.config.ts`
 * runs a dev server that proxies /api and /socket.io to a console on :8080 (`npm start`).
 */
const api = process.env.BATON_CONSOLE_URL ?? 'http://127.0.0.1:8080';

export default defineConfig({
  root: __dirname,
  base: '/',
  plugins: [react()],
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
