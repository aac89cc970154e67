import { ask, expect, lastAnswer, newChat, signInQuickly, stack, test } from './fixtures';

test('model output cannot inject HTML, load off-server images or run a link', async ({ page }) => {
  const offServer: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(stack().baseUrl)) offServer.push(request.url());
  });
  await signInQuickly(page, stack().admin);
  await page.goto('/agent');
  await newChat(page);
  await ask(page, 'Show me some markup');
  const answer = lastAnswer(page);
  await expect(answer).toHaveAttribute('data-status', 'complete');

  // Raw HTML is text, not elements.
  await expect(answer).toContainText('<script>window.__pwned = true</script>');
  await expect(answer.locator('script')).toHaveCount(0);
  await expect(answer.locator('img[onerror]')).toHaveCount(0);
  // The image on another host is named, not fetched.
  await expect(answer.getByText(/Image not loaded/)).toBeVisible();
  await expect(answer.locator('img[src*="tracker.invalid"]')).toHaveCount(0);
  // A javascript: link has no such href; an outside link opens apart, without a referrer.
  const hrefs = await answer.locator('a').evaluateAll((links) =>
    links.map((a) => (a as HTMLAnchorElement).getAttribute('href') ?? ''),
  );
  expect(hrefs.some((href) => href.toLowerCase().startsWith('javascript:'))).toBe(false);
  const docs = answer.getByRole('link', { name: 'the docs' });
  await expect(docs).toHaveAttribute('target', '_blank');
  await expect(docs).toHaveAttribute('rel', /noopener.*noreferrer|noreferrer.*noopener/);
  await answer.getByText('click me').click();

  expect(await page.evaluate(() => (window as unknown as { __pwned?: boolean }).__pwned)).toBeUndefined();
  expect(offServer).toEqual([]);
});

test.describe('a flaky network', () => {
  // The cut stream is reported by the browser, as it should be.
  test.use({ allowedConsole: /ERR_INCOMPLETE_CHUNKED_ENCODING \S+\/messages\/\S+\/(stream|events)$/ });

  test('a dropped connection resumes the answer with Last-Event-ID', async ({ page, request }) => {
    const resumed: string[] = [];
    page.on('request', (request) => {
      const lastId = request.headers()['last-event-id'];
      if (request.url().includes('/events') && lastId) resumed.push(lastId);
    });
    await signInQuickly(page, stack().admin);
    await page.goto('/agent');
    await newChat(page);
    await ask(page, 'Tell me slowly what changed');
    const answer = lastAnswer(page);
    await expect(answer).toContainText('Part 2:');
    const cut = await request.post(stack().dropUrl);
    expect((await cut.json()).dropped).toBeGreaterThan(0);
    await expect(answer).toHaveAttribute('data-status', 'complete', { timeout: 60_000 });
    await expect(answer).toContainText('Part 40: the regions differ');
    expect((await answer.textContent())?.split('Part 2:').length).toBe(2);
    expect(resumed.length).toBeGreaterThan(0);
  });
});
