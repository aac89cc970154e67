// The chat list (seed 000's useDataAgent): search (debounced), create, rename, delete.

import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useState } from 'react';
import { useApi } from '../api/ApiContext';
import { errorMessage, unwrap, type ApiClient } from '../api/client';
import type { NewChatInput } from '../components/data-agent/NewChatDialog';
import type { ChatSummary } from '../types';
import type { ChatListPage } from './chatCache';
import { toChatSummary } from './chatSummary';
import { queryKeys } from './queries';
import { useCreateChat, useDeleteChat, useRenameChat } from './useChatMutations';

export const SEARCH_DEBOUNCE_MS = 250;
/** The list shows the most recent chats, up to the API's page limit. */
export const CHAT_PAGE_SIZE = 100;

async function fetchChatList(api: ApiClient, search: string, signal: AbortSignal): Promise<ChatListPage> {
  const page = await unwrap(
    api.http.GET('/api/data-agent/chats', {
      params: {
        query: { page: 1, pageSize: CHAT_PAGE_SIZE, sortBy: 'updatedAt', sortOrder: 'desc', search: search || undefined },
      },
      signal,
    }),
  );
  return { chats: page.items.map(toChatSummary), total: page.total };
}

export interface DataAgentState {
  chats: ChatSummary[];
  total: number;
  /** The search box's text (the list follows it 250 ms later). */
  search: string;
  setSearch: (search: string) => void;
  /** Nothing loaded yet for the current search (the previous search's list may show). */
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
  const queryClient = useQueryClient();
  const [search, setSearch] = useState('');
  const [query, setQuery] = useState('');

  useEffect(() => {
    const timer = setTimeout(() => setQuery(search.trim()), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [search]);

  const list = useQuery({
    queryKey: queryKeys.chatList(query),
    queryFn: ({ signal }) => fetchChatList(api, query, signal),
    // While the next search loads, the last list stays (with a progress bar).
    placeholderData: keepPreviousData,
    refetchOnWindowFocus: true,
  });

  const create = useCreateChat();
  const rename = useRenameChat();
  const remove = useDeleteChat();
  const { mutateAsync: createAsync } = create;
  const { mutateAsync: renameAsync } = rename;
  const { mutateAsync: removeAsync } = remove;

  const refresh = useCallback(() => {
    void queryClient.invalidateQueries({ queryKey: queryKeys.chatLists });
  }, [queryClient]);
  const createChat = useCallback(async (input: NewChatInput) => toChatSummary(await createAsync(input)), [createAsync]);
  const renameChat = useCallback(
    async (chatId: string, name: string) => toChatSummary(await renameAsync({ chatId, name })),
    [renameAsync],
  );
  const deleteChat = useCallback((chatId: string) => removeAsync(chatId), [removeAsync]);

  return {
    chats: list.data?.chats ?? [],
    total: list.data?.total ?? 0,
    search,
    setSearch,
    loading: list.isPending || list.isPlaceholderData,
    error: list.isError ? errorMessage(list.error) : null,
    refresh,
    createChat,
    renameChat,
    deleteChat,
  };
}
