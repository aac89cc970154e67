import { ask, expect, lastAnswer, newChat, signInQuickly, stack, test } from './fixtures';

test.beforeEach(async ({ page }) => {
  await signInQuickly(page, stack().admin);
  await page.goto('/agent');
  await newChat(page);
});

test('Stop ends the answer mid-way and keeps what was written', async ({ page }) => {
  await ask(page, 'Tell me slowly how the regions compare');
  const answer = lastAnswer(page);
  await expect(answer).toContainText('Part 2:');
  await page.getByRole('button', { name: 'Stop generating' }).click();
  await expect(answer).toHaveAttribute('data-status', 'failed');
  await expect(answer).toContainText('Stopped');
  await expect(answer).toContainText('Part 1:');
  await expect(answer).not.toContainText('Part 40:');
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeEnabled();
  // Stopped for good: a reload shows the same.
  await page.reload();
  await expect(lastAnswer(page)).toHaveAttribute('data-status', 'failed');
});

test('reloading mid-answer re-attaches to the run and shows everything', async ({ page }) => {
  await ask(page, 'Tell me slowly about each region');
  await expect(lastAnswer(page)).toContainText('Part 3:');
  await page.reload();
  const answer = lastAnswer(page);
  // What was written before the reload is there at once, and the rest streams in.
  await expect(answer).toContainText('Part 1:');
  await expect(answer).toHaveAttribute('data-status', 'generating');
  await expect(answer).toHaveAttribute('data-status', 'complete', { timeout: 60_000 });
  await expect(answer).toContainText('Part 40: the regions differ');
  const text = (await answer.textContent()) ?? '';
  // Nothing twice: replay and live tail joined without duplicates.
  expect(text.split('Part 3:').length).toBe(2);
});
