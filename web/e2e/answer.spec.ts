import { readFileSync } from 'node:fs';
import { ask, expect, lastAnswer, newChat, signInQuickly, stack, test } from './fixtures';

test('ask: the tool accordion shows the SQL, the answer streams with a table and a chart', async ({
  page,
  context,
}) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await signInQuickly(page, stack().admin);
  await page.goto('/agent');
  await newChat(page);
  // An empty chat offers questions drawn from its ontology.
  const suggestions = page.getByRole('list', { name: 'Suggested questions' }).getByRole('button');
  await expect(suggestions.first()).toBeVisible();
  expect(await suggestions.count()).toBeGreaterThanOrEqual(2);

  const messages = page.getByRole('log', { name: 'Messages' });
  await ask(page, 'What is the revenue by region?');
  await expect(messages.locator('[data-role="user"]').last()).toContainText(
    'What is the revenue by region?',
  );
  // While it is written the box is disabled and Stop is offered.
  await expect(page.getByRole('button', { name: 'Stop generating' })).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeDisabled();

  const answer = lastAnswer(page);
  await expect(answer).toHaveAttribute('data-status', 'complete', { timeout: 60_000 });
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeEnabled();

  // The query's accordion: label, then the SQL and its result when opened.
  const analysed = answer.getByRole('button', { name: /Analyzed data/ });
  await expect(analysed).toBeVisible();
  await analysed.click();
  await expect(answer.getByText(/GROUP BY s\.region/)).toBeVisible();
  await answer.getByRole('button', { name: 'Copy SQL' }).first().click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toContain('GROUP BY s.region');
  await expect(answer.getByRole('button', { name: /Ran Python analysis/ })).toBeVisible();

  // The answer's table, as a table, and its CSV.
  const table = answer.getByRole('table').last();
  await expect(table).toContainText('South');
  await expect(table).toContainText('Midwest');
  const download = page.waitForEvent('download');
  await answer.getByRole('button', { name: 'Download table as CSV' }).last().click();
  const file = await download;
  const bytes = readFileSync(await file.path());
  // UTF-8 with a byte-order mark, for spreadsheet programs.
  expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  const csv = bytes.subarray(3).toString('utf-8');
  expect(csv.split(/\r?\n/)[0]).toBe('region,revenue');
  expect(csv).toMatch(/South,\d+\.\d+/);

  // The chart the sandbox drew, loaded from the server (with the session cookie).
  const chart = answer.locator('img[src^="/api/charts/"]').first();
  await expect(chart).toBeVisible();
  expect(await chart.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(100);

  await answer.getByRole('button', { name: 'Copy answer' }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toContain('Revenue differs');

  // The header names the ontology and the model in use.
  await expect(page.getByText('Retail demo').first()).toBeVisible();
  await expect(page.getByText(/fake-model/).first()).toBeVisible();

  // The stored answer is the same after a reload.
  await page.reload();
  await expect(lastAnswer(page)).toHaveAttribute('data-status', 'complete');
  await expect(lastAnswer(page).getByRole('table').last()).toContainText('South');
});
