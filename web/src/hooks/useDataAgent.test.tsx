import { act, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { ApiProvider } from '../api/ApiContext';
import { createApiClient } from '../api/client';
import { errorResponse, fakeNetwork, jsonResponse } from '../api/fakeFetch';
import { chat, testQueryClient } from '../pages/testApp';
import { useDataAgent } from './useDataAgent';

function setup(hold?: Promise<void>) {
  let chats = [chat('c1', 'Revenue'), chat('c2', 'Churn')];
  const network = fakeNetwork(async (req) => {
    if (req.method === 'GET' && req.path === '/api/data-agent/chats') {
      if (hold && req.url.includes('search=')) await hold;
      const search = new URL(req.url, 'http://test').searchParams.get('search')?.toLowerCase() ?? '';
      const items = chats.filter((c) => c.name.toLowerCase().includes(search));
      return jsonResponse(200, { data: { items, total: items.length, page: 1, pageSize: 100, totalPages: 1 } });
    }
    if (req.method === 'POST' && req.path === '/api/data-agent/chats') {
      const body = JSON.parse(req.body) as { name: string; ontologyId: string };
      const created = chat('c3', body.name);
      chats = [created, ...chats];
      return jsonResponse(201, { data: { ...created, messages: [] } });
    }
    const match = /^\/api\/data-agent\/chats\/(\w+)$/.exec(req.path);
    if (match && req.method === 'PATCH') {
      const body = JSON.parse(req.body) as { name: string };
      chats = chats.map((c) => (c.id === match[1] ? { ...c, name: body.name } : c));
      return jsonResponse(200, { data: chats.find((c) => c.id === match[1]) });
    }
    if (match && req.method === 'DELETE') {
      if (match[1] === 'c2') return errorResponse(403, 'FORBIDDEN', 'Your role may not delete chats.');
      chats = chats.filter((c) => c.id !== match[1]);
      return new Response(null, { status: 204 });
    }
    return errorResponse(404, 'NOT_FOUND', 'no');
  });
  const client = createApiClient({ fetch: network.fetch, baseUrl: 'http://test' });
  const queryClient = testQueryClient();
  const wrapper = ({ children }: { children: ReactNode }) => <ApiProvider client={client} queryClient={queryClient}>{children}</ApiProvider>;
  return { network, hook: renderHook(() => useDataAgent(), { wrapper }) };
}

const listCalls = (urls: string[]) => urls.filter((u) => u.startsWith('/api/data-agent/chats?'));

/** `count` chats, newest first, served page by page as the API does. */
function setupPaged(count: number) {
  const chats = Array.from({ length: count }, (_, i) => chat(`c${i + 1}`, `Chat ${i + 1}`));
  const network = fakeNetwork((req) => {
    if (req.method === 'POST') {
      const created = chat('new', (JSON.parse(req.body) as { name: string }).name);
      chats.unshift(created);
      return jsonResponse(201, { data: { ...created, messages: [] } });
    }
    const query = new URL(req.url, 'http://test').searchParams;
    const page = Number(query.get('page'));
    const pageSize = Number(query.get('pageSize'));
    const items = chats.slice((page - 1) * pageSize, page * pageSize);
    const totalPages = Math.ceil(chats.length / pageSize);
    return jsonResponse(200, { data: { items, total: chats.length, page, pageSize, totalPages } });
  });
  const client = createApiClient({ fetch: network.fetch, baseUrl: 'http://test' });
  const queryClient = testQueryClient();
  const wrapper = ({ children }: { children: ReactNode }) => <ApiProvider client={client} queryClient={queryClient}>{children}</ApiProvider>;
  return { chats, network, hook: renderHook(() => useDataAgent(), { wrapper }) };
}

const pagesAsked = (urls: string[]) => listCalls(urls).map((u) => new URL(u, 'http://test').searchParams.get('page'));

describe('useDataAgent', () => {
  it('lists the most recently updated chats', async () => {
    const { network, hook } = setup();
    await waitFor(() => expect(hook.result.current.loading).toBe(false));
    expect(hook.result.current.chats.map((c) => c.name)).toEqual(['Revenue', 'Churn']);
    const query = new URL(network.requests[0].url, 'http://test').searchParams;
    expect(Object.fromEntries(query)).toEqual({ page: '1', pageSize: '100', sortBy: 'updatedAt', sortOrder: 'desc' });
  });

  it('searches 250 ms after the last keystroke, once', async () => {
    const { network, hook } = setup();
    await waitFor(() => expect(hook.result.current.loading).toBe(false));
    act(() => hook.result.current.setSearch('c'));
    act(() => hook.result.current.setSearch('ch'));
    act(() => hook.result.current.setSearch('chu'));
    expect(hook.result.current.search).toBe('chu');
    await waitFor(() => expect(hook.result.current.chats.map((c) => c.name)).toEqual(['Churn']));
    const urls = listCalls(network.requests.map((r) => r.url));
    expect(urls).toHaveLength(2);
    expect(urls[1]).toContain('search=chu');
  });

  it('creates, renames and deletes chats, and reports a refusal', async () => {
    const { network, hook } = setup();
    await waitFor(() => expect(hook.result.current.loading).toBe(false));

    await act(() => hook.result.current.createChat({ ontologyId: 'o1', name: '  ' }));
    const create = network.requests.find((r) => r.method === 'POST');
    expect(JSON.parse(create!.body)).toEqual({ ontologyId: 'o1', name: 'New chat' });
    await waitFor(() => expect(hook.result.current.chats).toHaveLength(3));

    await act(() => hook.result.current.renameChat('c1', ' Revenue 2026 '));
    expect(hook.result.current.chats.find((c) => c.id === 'c1')?.name).toBe('Revenue 2026');

    await act(() => hook.result.current.deleteChat('c1'));
    expect(hook.result.current.chats.map((c) => c.id)).not.toContain('c1');

    await expect(hook.result.current.deleteChat('c2')).rejects.toMatchObject({ message: 'Your role may not delete chats.' });
    expect(hook.result.current.chats.map((c) => c.id)).toContain('c2');
  });

  it('pages past the first 100 chats, one page of 100 at a time', async () => {
    const { network, hook } = setupPaged(250);
    await waitFor(() => expect(hook.result.current.loading).toBe(false));
    expect(hook.result.current.chats).toHaveLength(100);
    expect(hook.result.current).toMatchObject({ total: 250, hasMore: true, loadingMore: false });

    act(() => hook.result.current.loadMore());
    await waitFor(() => expect(hook.result.current.chats).toHaveLength(200));
    expect(hook.result.current.hasMore).toBe(true);
    act(() => hook.result.current.loadMore());
    await waitFor(() => expect(hook.result.current.chats).toHaveLength(250));
    expect(hook.result.current.hasMore).toBe(false);
    expect(hook.result.current.chats.at(-1)?.name).toBe('Chat 250');

    // Nothing more to load: no request.
    act(() => hook.result.current.loadMore());
    expect(pagesAsked(network.requests.map((r) => r.url))).toEqual(['1', '2', '3']);
  });

  it('shows a chat once when the list moved it from one page to another', async () => {
    const { chats, hook } = setupPaged(150);
    await waitFor(() => expect(hook.result.current.hasMore).toBe(true));
    // Chat 120 gets an answer: it is now the most recent, first on page 1, and page 2
    // starts one chat earlier (chat 100 is on both pages).
    const [moved] = chats.splice(119, 1);
    chats.unshift(moved);
    act(() => hook.result.current.loadMore());
    await waitFor(() => expect(hook.result.current.hasMore).toBe(false));
    const ids = hook.result.current.chats.map((c) => c.id);
    expect(ids.filter((id) => id === 'c100')).toHaveLength(1);
    expect(new Set(ids).size).toBe(ids.length);
    // (Chat 120 shows again when the list is next read: an answer's end, or focus, reads it.)
  });

  it('puts a created chat first and keeps every page loaded', async () => {
    const { network, hook } = setupPaged(150);
    await waitFor(() => expect(hook.result.current.hasMore).toBe(true));
    act(() => hook.result.current.loadMore());
    await waitFor(() => expect(hook.result.current.chats).toHaveLength(150));
    await act(() => hook.result.current.createChat({ ontologyId: 'o1', name: 'Fresh' }));
    expect(hook.result.current.chats[0].name).toBe('Fresh');
    expect(hook.result.current.chats).toHaveLength(151);
    // Then the list is read again, both pages of it, and still holds every chat once.
    await waitFor(() => expect(pagesAsked(network.requests.map((r) => r.url))).toEqual(['1', '2', '1', '2']));
    await waitFor(() => expect(hook.result.current.total).toBe(151));
    expect(new Set(hook.result.current.chats.map((c) => c.id)).size).toBe(151);
  });

  it('keeps showing the last list while a search loads', async () => {
    let release!: () => void;
    const { hook } = setup(new Promise<void>((resolve) => (release = resolve)));
    await waitFor(() => expect(hook.result.current.loading).toBe(false));
    act(() => hook.result.current.setSearch('churn'));
    await waitFor(() => expect(hook.result.current.loading).toBe(true));
    expect(hook.result.current.chats.map((c) => c.name)).toEqual(['Revenue', 'Churn']);
    release();
    await waitFor(() => expect(hook.result.current.loading).toBe(false));
    expect(hook.result.current.chats.map((c) => c.name)).toEqual(['Churn']);
  });
});
