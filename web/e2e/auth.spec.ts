import { expect, stack, test } from './fixtures';

test.describe('a wrong password and a chat that is not yours', () => {
  // Provoked on purpose: the browser logs the 401 and the 404 it receives.
  test.use({
    allowedConsole: /status of (401.*\/api\/auth\/login|404.*\/api\/data-agent\/chats\/\S+)$/,
  });

  test('a signed-out visit goes to sign-in and comes back to where it was', async ({ page }) => {
    await page.goto('/agent/00000000-0000-4000-8000-000000000000?x=1');
    await expect(page).toHaveURL(/\/signin\?next=/);
    const next = new URL(page.url()).searchParams.get('next');
    expect(next).toBe('/agent/00000000-0000-4000-8000-000000000000?x=1');

    await page.getByLabel('Email').fill(stack().admin.email);
    await page.getByLabel('Password', { exact: true }).fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert')).toContainText(/password/i);

    await page.getByLabel('Password', { exact: true }).fill(stack().admin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page).toHaveURL(/\/agent\/00000000-0000-4000-8000-000000000000\?x=1$/);
    // Not this user's chat (nobody's): said plainly, with the way back.
    await expect(page.getByText('This chat does not exist or is not yours.')).toBeVisible();
  });
});

test.describe('signing in and out', () => {

  test('the session is an HttpOnly cookie, and signing out ends it', async ({ page, context }) => {
    await page.goto('/signin');
    await page.getByLabel('Email').fill(stack().admin.email);
    await page.getByLabel('Password', { exact: true }).fill(stack().admin.password);
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(/\/agent$/);
    const cookie = (await context.cookies()).find((c) => c.name === 'dataagent_session');
    expect(cookie?.httpOnly).toBe(true);
    expect(await page.evaluate(() => document.cookie)).not.toContain('dataagent_session');
    expect(await page.evaluate(() => localStorage.length)).toBe(0);

    await page.getByRole('button', { name: 'Account' }).click();
    await expect(page.getByRole('menu')).toContainText(stack().admin.email);
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await expect(page).toHaveURL(/\/signin/);
    await page.goto('/agent');
    await expect(page).toHaveURL(/\/signin\?next=%2Fagent/);
  });

  test('the page carries a strict Content-Security-Policy', async ({ page }) => {
    const response = await page.goto('/signin');
    const csp = response?.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("img-src 'self' data: blob:");
    expect(csp).not.toContain('unsafe-eval');
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    // No inline script in the page the server sends.
    const html = await (await page.request.get('/signin')).text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
  });
});
