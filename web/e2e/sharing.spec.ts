// A shared ontology, seen by the person it is shared with: the admin (who owns the demo
// ontology) shares it with the contributor through the API; the contributor starts a chat on
// it in the browser and gets an answer; once the share is revoked the chat is read-only, and
// sharing it again makes it askable again. The chat is answered by the built-in planner, so
// the scripted model is never called.
import type { APIRequestContext, Page } from '@playwright/test';
import { apiLogin, ask, expect, lastAnswer, stack, test } from './fixtures';

const SHARED_MARKER = 'Shared ontology';
const WITHDRAWN_MARKER = 'Ontology no longer shared: read only';
const WITHDRAWN_MESSAGE =
  "This chat's ontology is no longer shared with you: you can read the chat, but not ask in it. " +
  "Ask the ontology's owner to share it again.";
const WITHDRAWN_REASON = 'Sending is disabled: the ontology is no longer shared with you.';
const QUESTION = 'How many orders are there?';

/** The owner's side, through the API with their bearer token. */
class Owner {
  constructor(
    private readonly request: APIRequestContext,
    private readonly token: string,
  ) {}

  private get headers() {
    return { Authorization: `Bearer ${this.token}` };
  }

  async demoOntologyId(): Promise<string> {
    const response = await this.request.get('/api/ontologies', { headers: this.headers });
    expect(response.status()).toBe(200);
    const { data } = (await response.json()) as { data: { id: string; name: string; access: string }[] };
    const demo = data.find((o) => o.name === 'Retail demo' && o.access === 'owner');
    if (!demo) throw new Error('the admin owns no ontology named "Retail demo"');
    return demo.id;
  }

  async share(ontologyId: string, userId: string): Promise<void> {
    const response = await this.request.post(`/api/ontologies/${ontologyId}/shares`, {
      headers: this.headers,
      data: { userId },
    });
    expect(response.status()).toBe(201);
  }

  /** Revokes every share of the ontology with this user (none is fine). */
  async revoke(ontologyId: string, userId: string): Promise<void> {
    const listed = await this.request.get(`/api/ontologies/${ontologyId}/shares`, { headers: this.headers });
    expect(listed.status()).toBe(200);
    const { data } = (await listed.json()) as { data: { id: string; userId: string | null }[] };
    for (const share of data.filter((s) => s.userId === userId)) {
      const gone = await this.request.delete(`/api/ontologies/${ontologyId}/shares/${share.id}`, {
        headers: this.headers,
      });
      expect(gone.status()).toBe(204);
    }
  }
}

/** The chat's row in the sidebar (its accessible name carries the access marker). */
function sidebarRow(page: Page, name: string) {
  const sidebar = page.getByRole('navigation', { name: 'Chats' });
  return sidebar.getByRole('button', { name: new RegExp(`^${name}`) });
}

test('a shared ontology is asked about by its grantee, and read-only once withdrawn', async ({
  page,
  request,
}) => {
  const { admin, contributor } = stack();
  const sharedBy = `Shared by ${admin.email}`;
  const ownerLogin = await apiLogin(request, admin);
  const owner = new Owner(request, ownerLogin.token);
  const ontologyId = await owner.demoOntologyId();
  // The page signs in as the contributor (the cookie lands in the page's context).
  const grantee = await apiLogin(page.request, contributor);
  // Whatever an earlier run left, start from no share.
  await owner.revoke(ontologyId, grantee.userId);
  const chatName = `Shared orders ${Date.now().toString(36)}`;
  let chatId: string | null = null;

  try {
    await owner.share(ontologyId, grantee.userId);
    await page.goto('/agent');

    // The picker lists the shared ontology with its owner; the answer mode is the built-in
    // planner, so no model call is made.
    await page.getByRole('button', { name: 'New chat' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'New chat' });
    await expect(dialog).toBeVisible();
    await dialog.getByRole('combobox', { name: /Ontology/ }).click();
    const option = page.getByRole('option', { name: /Retail demo/ });
    await expect(option).toContainText(sharedBy);
    await option.click();
    await expect(dialog).toContainText(`${sharedBy}: you can ask about it`);
    await dialog.getByLabel('Chat name (optional)').fill(chatName);
    await dialog.getByRole('combobox', { name: /Answer mode/ }).click();
    await page.getByRole('option', { name: 'Built-in planner: no model calls' }).click();
    await dialog.getByRole('button', { name: 'Create' }).click();
    await expect(dialog).toBeHidden();
    await expect(page).toHaveURL(/\/agent\/[0-9a-f-]{36}$/);
    chatId = new URL(page.url()).pathname.split('/').pop() ?? null;
    const created = await page.request.get(`/api/data-agent/chats/${chatId}`);
    expect(((await created.json()) as { data: { agentMode: string } }).data.agentMode).toBe('offline');

    await expect(page.getByRole('main').getByText(sharedBy)).toBeVisible();
    await expect(sidebarRow(page, chatName).getByRole('img', { name: SHARED_MARKER })).toBeVisible();

    await ask(page, QUESTION);
    const answer = lastAnswer(page);
    await expect(answer).toHaveAttribute('data-status', 'complete', { timeout: 60_000 });
    // The planner's query ran on the owner's connection and counted the demo's orders.
    await expect(answer.getByRole('button', { name: /Analyzed data/ })).toBeVisible();
    await expect(answer).toContainText(/Orders: \d[\d,]*/);

    // Revoked: on the next load the chat is read-only, its history still there.
    await owner.revoke(ontologyId, grantee.userId);
    await page.reload();
    await expect(page.getByRole('alert').filter({ hasText: WITHDRAWN_MESSAGE })).toBeVisible();
    await expect(page.getByRole('textbox', { name: 'Message' })).toBeDisabled();
    await expect(page.getByText(WITHDRAWN_REASON)).toBeVisible();
    await expect(page.getByRole('button', { name: 'Send' })).toBeDisabled();
    const messages = page.getByRole('log', { name: 'Messages' });
    await expect(messages.locator('[data-role="user"]')).toContainText(QUESTION);
    await expect(lastAnswer(page)).toHaveAttribute('data-status', 'complete');
    await expect(page.getByRole('button', { name: 'Regenerate' })).toHaveCount(0);
    const row = sidebarRow(page, chatName);
    await expect(row.getByRole('img', { name: WITHDRAWN_MARKER })).toBeVisible();
    await expect(row.getByRole('img', { name: SHARED_MARKER })).toHaveCount(0);

    // Shared again: the same chat is askable again.
    await owner.share(ontologyId, grantee.userId);
    await page.reload();
    await expect(page.getByRole('textbox', { name: 'Message' })).toBeEnabled();
    await expect(page.getByText(WITHDRAWN_MESSAGE)).toHaveCount(0);
    await expect(sidebarRow(page, chatName).getByRole('img', { name: SHARED_MARKER })).toBeVisible();
  } finally {
    // Leave nothing behind: the contributor's chat and the share.
    if (chatId) {
      const deleted = await page.request.delete(`/api/data-agent/chats/${chatId}`);
      expect(deleted.status()).toBe(204);
    }
    await owner.revoke(ontologyId, grantee.userId);
  }
});
