import { defineConfig } from '@playwright/test';
import base from '../playwright.config';

// The page's rendering benchmark (benchmarks/web_stream_bench.py runs it): the browser
// tests' stack and browser, its own folder.
export default defineConfig({
  ...base,
  testDir: '.',
  testMatch: '**/*.bench.ts',
  globalSetup: '../e2e/global-setup.ts',
  timeout: 300_000,
});
