// Asking a question again: Regenerate on the last answer, Retry on a failed (here: stopped)
// one. Each makes a new answer after the old one, which stays in the history.
import type { Page } from '@playwright/test';
import { ask, expect, lastAnswer, newChat, signInQuickly, stack, test } from './fixtures';

test.beforeEach(async ({ page }) => {
  await signInQuickly(page, stack().admin);
  await page.goto('/agent');
  await newChat(page);
});

const answers = (page: Page) => page.locator('[data-testid="message"][data-role="assistant"]');
const questions = (page: Page) => page.locator('[data-testid="message"][data-role="user"]');

test('Regenerate answers the last question again and keeps the first answer', async ({ page }) => {
  await ask(page, 'How does revenue compare between the regions?');
  await expect(lastAnswer(page)).toHaveAttribute('data-status', 'complete', { timeout: 60_000 });
  await expect(page.getByRole('button', { name: 'Retry' })).toHaveCount(0);

  await page.getByRole('button', { name: 'Regenerate' }).click();
  await expect(answers(page)).toHaveCount(2);
  // Streamed like a question's answer: generating, then the whole answer with its tools.
  const second = answers(page).last();
  await expect(second).toHaveAttribute('data-status', 'complete', { timeout: 60_000 });
  await expect(second).toContainText('Revenue differs clearly between the regions.');
  await expect(second.getByRole('button', { name: /Analyzed data/ })).toBeVisible();
  await expect(answers(page).first()).toContainText('Revenue differs clearly between the regions.');
  await expect(questions(page)).toHaveCount(1);
  // Only the last answer offers it.
  await expect(page.getByRole('button', { name: 'Regenerate' })).toHaveCount(1);

  // Stored so: a reload shows the same history.
  await page.reload();
  await expect(answers(page)).toHaveCount(2);
  await expect(questions(page)).toHaveCount(1);
  await expect(answers(page).last()).toHaveAttribute('data-status', 'complete');
});

test('Retry on a stopped answer asks again and streams the new answer to its end', async ({ page }) => {
  await ask(page, 'Tell me slowly how the stores compare');
  await expect(lastAnswer(page)).toContainText('Part 2:');
  await page.getByRole('button', { name: 'Stop generating' }).click();
  const stopped = answers(page).first();
  await expect(stopped).toHaveAttribute('data-status', 'failed');

  await stopped.getByRole('button', { name: 'Retry' }).click();
  await expect(answers(page)).toHaveCount(2);
  const retried = answers(page).last();
  await expect(retried).toContainText('Part 2:');
  await expect(page.getByRole('button', { name: 'Stop generating' })).toBeVisible();
  await expect(retried).toHaveAttribute('data-status', 'complete', { timeout: 60_000 });
  await expect(retried).toContainText('Part 40: the regions differ');
  // The stopped answer stays as it was, and no longer offers Retry (it is not the last).
  await expect(stopped).toHaveAttribute('data-status', 'failed');
  await expect(stopped).toContainText('Stopped by you.');
  await expect(page.getByRole('button', { name: 'Retry' })).toHaveCount(0);
  await expect(questions(page)).toHaveCount(1);
});
