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
