/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The built page is served by the Python server at `/`; in development `npm run dev`
// proxies the API to a server on DATAAGENT_DEV_API (default http://127.0.0.1:8000).
const api = process.env.DATAAGENT_DEV_API ?? 'http://127.0.0.1:8000';

export default defineConfig({
  plugins: [react()],
  build: {
    outDir: 'dist',
    // No inline scripts or data: modules: the server's Content-Security-Policy forbids them.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 2000,
  },
  server: {
    proxy: { '/api': { target: api, changeOrigin: false } },
  },
  test: {
    environment: 'jsdom',
    globals: true,
    setupFiles: ['./src/test/setup.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
    css: false,
    // Room for the waits above on a loaded machine; a test that hangs still fails.
    testTimeout: 30000,
  },
});
