// Starts tests/e2e/web_stack.py (a scripted model + `dataagent demo` serving web/dist) and
// hands its address and accounts to the tests in E2E_STACK; the returned function stops it.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..', '..');

export default async function globalSetup(): Promise<() => Promise<void>> {
  const python = process.env.DATAAGENT_PYTHON ?? resolve(repo, '.venv', 'bin', 'python');
  if (!existsSync(resolve(repo, 'web', 'dist', 'index.html'))) {
    throw new Error('web/dist is not built: run `make web` first');
  }
  const child = spawn(python, ['-m', 'tests.e2e.web_stack'], {
    cwd: repo,
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env },
  });
  const announcement = await new Promise<string>((resolveLine, reject) => {
    let buffer = '';
    const timer = setTimeout(() => reject(new Error('the web stack did not start in 300 s')), 300_000);
    child.stdout.setEncoding('utf-8');
    child.stdout.on('data', (text: string) => {
      buffer += text;
      const line = buffer.split('\n').find((l) => l.startsWith('WEB_STACK '));
      if (line) {
        clearTimeout(timer);
        resolveLine(line.slice('WEB_STACK '.length));
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the web stack exited (${code}) before it was ready:\n${buffer}`));
    });
  });
  process.env.E2E_STACK = announcement;
  return async () => {
    child.stdin.end();
    await new Promise<void>((done) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        done();
      }, 30_000);
      child.on('exit', () => {
        clearTimeout(timer);
        done();
      });
      child.kill('SIGTERM');
    });
  };
}
