import { expect, signIn, stack, test } from './fixtures';

test('a viewer can read but cannot start a chat or send', async ({ page }) => {
  await signIn(page, stack().viewer);
  await expect(page.getByRole('heading', { name: 'Data Agent' }).first()).toBeVisible();
  await expect(page.getByRole('button', { name: 'New chat' })).toHaveCount(0);
  // The server refuses too (the page only mirrors it).
  const ontologies = await page.request.get('/api/ontologies');
  expect(ontologies.status()).toBe(200);
  const refused = await page.request.post('/api/data-agent/chats', {
    data: { ontologyId: '00000000-0000-4000-8000-000000000000' },
  });
  expect(refused.status()).toBe(403);
});
