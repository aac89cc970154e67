// What every browser test shares: the stack's address and accounts, signing in, and a
// guard that fails the test on any console error, uncaught exception or CSP violation.
import { test as base, expect, type APIRequestContext, type Page } from '@playwright/test';

export interface Account {
  email: string;
  password: string;
}

interface Stack {
  baseUrl: string;
  /** A POST here cuts every open connection between the page and the server. */
  dropUrl: string;
  /** Owns the demo ontology ("Retail demo"). */
  admin: Account;
  viewer: Account;
  /** Owns nothing: a test shares the demo ontology with them. */
  contributor: Account;
}

export function stack(): Stack {
  const raw = process.env.E2E_STACK;
  if (!raw) throw new Error('E2E_STACK is not set: run through `npm run e2e`');
  return JSON.parse(raw) as Stack;
}

interface Fixtures {
  /** Console messages expected in this test: matched against "<text> <url>". */
  allowedConsole: RegExp | null;
  problems: string[];
}

export const test = base.extend<Fixtures>({
  // eslint-disable-next-line no-empty-pattern
  baseURL: async ({}, use) => {
    await use(stack().baseUrl);
  },
  allowedConsole: [null, { option: true }],
  problems: [
    async ({ page, allowedConsole }, use) => {
      const problems: string[] = [];
      await page.addInitScript(() => {
        document.addEventListener('securitypolicyviolation', (event) => {
          console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`);
        });
      });
      page.on('console', (message) => {
        if (message.type() !== 'error' && message.type() !== 'warning') return;
        const text = message.text();
        if (message.type() === 'warning' && !text.includes('Content Security Policy')) return;
        const where = `${text} ${message.location().url}`;
        if (allowedConsole?.test(where)) return;
        problems.push(`${message.type()}: ${where}`);
      });
      page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
      await use(problems);
      expect(problems, 'console errors, uncaught exceptions or CSP violations').toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };

export async function signIn(page: Page, account: Account, path = '/agent'): Promise<void> {
  await page.goto(path);
  await expect(page).toHaveURL(/\/signin/);
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password', { exact: true }).fill(account.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('navigation', { name: 'Chats' })).toBeVisible();
}

/** Signs in through the API (the session cookie lands in the page's context). */
export async function signInQuickly(page: Page, account: Account): Promise<void> {
  const response = await page.request.post('/api/auth/login', { data: account });
  expect(response.ok()).toBeTruthy();
}

/**
 * Signs in through `request` (which keeps the session cookie: `page.request` signs the page
 * in) and returns the bearer token and the user's id.
 */
export async function apiLogin(
  request: APIRequestContext,
  account: Account,
): Promise<{ token: string; userId: string }> {
  const response = await request.post('/api/auth/login', { data: account });
  expect(response.ok()).toBeTruthy();
  const { data } = (await response.json()) as { data: { accessToken: string; user: { id: string } } };
  return { token: data.accessToken, userId: data.user.id };
}

/** Creates a chat on the demo ontology through the dialog and opens it. */
export async function newChat(page: Page, name?: string): Promise<void> {
  await page.getByRole('button', { name: 'New chat' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'New chat' });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByLabel('Ontology')).toContainText('Retail demo');
  if (name) await dialog.getByLabel('Chat name (optional)').fill(name);
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(dialog).toBeHidden();
  await expect(page).toHaveURL(/\/agent\/[0-9a-f-]{36}$/);
}

export async function ask(page: Page, question: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(question);
  await box.press('Enter');
}

export function lastAnswer(page: Page) {
  return page.locator('[data-testid="message"][data-role="assistant"]').last();
}
