// The chat list (seed 000's useDataAgent): search (debounced), create, rename, delete.

import { useCallback, useEffect, useState } from 'react';
import { useApi } from '../api/ApiContext';
import { errorMessage, expectOk, isAbortError, unwrap, type Schemas } from '../api/client';
import type { NewChatInput } from '../components/data-agent/NewChatDialog';
import type { ChatSummary } from '../types';
import { toChatSummary } from './chatSummary';

export const SEARCH_DEBOUNCE_MS = 250;
/** The list shows the most recent chats, up to the API's page limit. */
export const CHAT_PAGE_SIZE = 100;

type Provider = NonNullable<Schemas['ChatCreate']['llmProvider']>;

interface ListState {
  query: string;
  chats: ChatSummary[];
  total: number;
  error: string | null;
}

export interface DataAgentState {
  chats: ChatSummary[];
  total: number;
  /** The search box's text (the list follows it 250 ms later). */
  search: string;
  setSearch: (search: string) => void;
  /** Nothing loaded yet for the current search. */
  loading: boolean;
  /** Why the list could not be loaded: a sentence. */
  error: string | null;
  refresh: () => void;
  createChat: (input: NewChatInput) => Promise<ChatSummary>;
  renameChat: (id: string, name: string) => Promise<ChatSummary>;
  deleteChat: (id: string) => Promise<void>;
}

export function useDataAgent(): DataAgentState {
  const api = useApi();
  const [search, setSearch] = useState('');
  const [query, setQuery] = useState('');
  const [version, setVersion] = useState(0);
  const [list, setList] = useState<ListState | null>(null);

  useEffect(() => {
    const timer = setTimeout(() => setQuery(search.trim()), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [search]);

  useEffect(() => {
    const controller = new AbortController();
    unwrap(
      api.http.GET('/api/data-agent/chats', {
        params: {
          query: { page: 1, pageSize: CHAT_PAGE_SIZE, sortBy: 'updatedAt', sortOrder: 'desc', search: query || undefined },
        },
        signal: controller.signal,
      }),
    ).then(
      (page) => {
        if (controller.signal.aborted) return;
        setList({ query, chats: page.items.map(toChatSummary), total: page.total, error: null });
      },
      (error: unknown) => {
        if (controller.signal.aborted || isAbortError(error)) return;
        setList((old) => ({
          query,
          chats: old?.query === query ? old.chats : [],
          total: old?.query === query ? old.total : 0,
          error: errorMessage(error),
        }));
      },
    );
    return () => controller.abort();
  }, [api, query, version]);

  const refresh = useCallback(() => setVersion((v) => v + 1), []);

  const createChat = useCallback(
    async (input: NewChatInput) => {
      const name = input.name?.trim();
      const chat = toChatSummary(
        await unwrap(
          api.http.POST('/api/data-agent/chats', {
            body: {
              ontologyId: input.ontologyId,
              // "New chat" is the API's own default: the chat is named from its first question.
              name: name || 'New chat',
              ...(input.llmProvider ? { llmProvider: input.llmProvider as Provider } : {}),
            },
          }),
        ),
      );
      setList((old) => old && { ...old, chats: [chat, ...old.chats.filter((c) => c.id !== chat.id)], total: old.total + 1 });
      refresh();
      return chat;
    },
    [api, refresh],
  );

  const renameChat = useCallback(
    async (id: string, name: string) => {
      const chat = toChatSummary(
        await unwrap(
          api.http.PATCH('/api/data-agent/chats/{chat_id}', { params: { path: { chat_id: id } }, body: { name: name.trim() } }),
        ),
      );
      setList((old) => old && { ...old, chats: old.chats.map((c) => (c.id === id ? chat : c)) });
      return chat;
    },
    [api],
  );

  const deleteChat = useCallback(
    async (id: string) => {
      await expectOk(api.http.DELETE('/api/data-agent/chats/{chat_id}', { params: { path: { chat_id: id } } }));
      setList((old) => old && { ...old, chats: old.chats.filter((c) => c.id !== id), total: Math.max(0, old.total - 1) });
    },
    [api],
  );

  return {
    chats: list?.chats ?? [],
    total: list?.total ?? 0,
    search,
    setSearch,
    loading: list === null || list.query !== query,
    error: list?.error ?? null,
    refresh,
    createChat,
    renameChat,
    deleteChat,
  };
}
