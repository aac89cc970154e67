import { expect, newChat, signInQuickly, stack, test } from './fixtures';

test('rename, search and delete a chat from the sidebar', async ({ page }) => {
  await signInQuickly(page, stack().admin);
  await page.goto('/agent');
  await newChat(page, 'Quarterly look');
  const sidebar = page.getByRole('navigation', { name: 'Chats' });
  const item = sidebar.getByRole('link', { name: /^Quarterly look/ }).or(
    sidebar.getByRole('button', { name: /^Quarterly look/ }),
  );
  await expect(item.first()).toBeVisible();
  await expect(sidebar.getByText('Today')).toBeVisible();

  // Rename: the action shows on hover; Enter saves.
  await item.first().hover();
  await sidebar.getByRole('button', { name: 'Rename chat Quarterly look' }).click();
  const rename = page.getByRole('dialog', { name: 'Rename chat' });
  await rename.getByLabel('Name').fill('Regional revenue');
  await rename.getByLabel('Name').press('Enter');
  await expect(rename).toBeHidden();
  await expect(sidebar.getByText('Regional revenue')).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Regional revenue' })).toBeVisible();

  // Search filters by name.
  await sidebar.getByRole('textbox', { name: 'Search chats' }).fill('zzz-no-such-chat');
  await expect(sidebar.getByText('No chats match')).toBeVisible();
  await sidebar.getByRole('textbox', { name: 'Search chats' }).fill('regional');
  await expect(sidebar.getByText('Regional revenue')).toBeVisible();

  // Delete asks first; Cancel keeps it, Delete removes it and leaves the chat.
  await sidebar.getByText('Regional revenue').hover();
  await sidebar.getByRole('button', { name: 'Delete chat Regional revenue' }).click();
  const confirm = page.getByRole('dialog', { name: 'Delete chat?' });
  await expect(confirm).toContainText('Regional revenue');
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(confirm).toBeHidden();
  await expect(sidebar.getByText('Regional revenue')).toBeVisible();

  await sidebar.getByText('Regional revenue').hover();
  await sidebar.getByRole('button', { name: 'Delete chat Regional revenue' }).click();
  await page.getByRole('dialog', { name: 'Delete chat?' }).getByRole('button', { name: 'Delete' }).click();
  await expect(sidebar.getByText('Regional revenue')).toHaveCount(0);
  await expect(page).toHaveURL(/\/agent$/);
});

test('Escape closes the new-chat dialog and focus stays usable', async ({ page }) => {
  await signInQuickly(page, stack().admin);
  await page.goto('/agent');
  await page.getByRole('button', { name: 'New chat' }).first().click();
  await expect(page.getByRole('dialog', { name: 'New chat' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog', { name: 'New chat' })).toBeHidden();
  // Keyboard only: Tab reaches the search box and the theme switch.
  await page.getByRole('textbox', { name: 'Search chats' }).focus();
  await expect(page.getByRole('textbox', { name: 'Search chats' })).toBeFocused();
});
