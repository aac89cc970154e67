// Phone width and dark mode, and the screenshots the closing note shows
// (web/e2e/screenshots/, not committed).
import { ask, expect, lastAnswer, newChat, signInQuickly, stack, test } from './fixtures';

const shots = 'e2e/screenshots';

for (const [width, height, device] of [
  [1280, 800, 'desktop'],
  [390, 844, 'phone'],
] as const) {
  for (const scheme of ['light', 'dark'] as const) {
    test(`${device} ${scheme}: welcome, a streamed answer with a chart, the tool accordions`, async ({
      page,
    }) => {
      await page.setViewportSize({ width, height });
      await page.emulateMedia({ colorScheme: scheme });
      await signInQuickly(page, stack().admin);
      await page.goto('/agent');
      await expect(page.getByRole('heading', { name: 'Data Agent' }).first()).toBeVisible();
      const background = await page.evaluate(
        () => getComputedStyle(document.body).backgroundColor,
      );
      const [r, g, b] = (background.match(/\d+/g) ?? ['0', '0', '0']).map(Number);
      if (scheme === 'dark') expect(r + g + b).toBeLessThan(200);
      else expect(r + g + b).toBeGreaterThan(600);
      await page.screenshot({ path: `${shots}/welcome-${device}-${scheme}.png` });

      if (device === 'phone') {
        // The sidebar is a drawer here; nothing overflows sideways.
        await expect(page.getByRole('navigation', { name: 'Chats' })).toBeHidden();
        await page.getByRole('button', { name: 'Open chat list' }).click();
        await expect(page.getByRole('navigation', { name: 'Chats' })).toBeVisible();
        await page.keyboard.press('Escape');
      }
      await newChat(page);
      await ask(page, 'What is the revenue by region?');
      const answer = lastAnswer(page);
      await expect(answer).toHaveAttribute('data-status', 'complete', { timeout: 60_000 });
      await expect(answer.locator('img[src^="/api/charts/"]').first()).toBeVisible();
      await page.screenshot({ path: `${shots}/answer-${device}-${scheme}.png` });
      await answer.getByRole('button', { name: /Analyzed data/ }).click();
      await answer.getByRole('button', { name: /Ran Python analysis/ }).click();
      await expect(answer.getByText(/GROUP BY s\.region/)).toBeVisible();
      await answer.getByRole('button', { name: /Analyzed data/ }).scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${shots}/tools-${device}-${scheme}.png` });
      // Only the message list scrolls: the page itself fits the window both ways.
      const overflow = await page.evaluate(() => {
        const root = document.documentElement;
        return [root.scrollWidth - root.clientWidth, root.scrollHeight - root.clientHeight];
      });
      expect(overflow).toEqual([0, 0]);
    });
  }
}
