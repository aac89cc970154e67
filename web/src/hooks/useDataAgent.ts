// The chat list (seed 000's useDataAgent): page by page, search (debounced), create, rename,
// delete.

import { keepPreviousData, useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { useApi } from '../api/ApiContext';
import { errorMessage, unwrap, type ApiClient } from '../api/client';
import type { NewChatInput } from '../components/data-agent/NewChatDialog';
import type { ChatSummary } from '../types';
import { chatsOfPages, type ChatListPage } from './chatCache';
import { toChatSummary } from './chatSummary';
import { queryKeys } from './queries';
import { useCreateChat, useDeleteChat, useRenameChat } from './useChatMutations';

export const SEARCH_DEBOUNCE_MS = 250;
/** Chats per page of the list, most recent first (the API's largest page). */
export const CHAT_PAGE_SIZE = 100;

async function fetchChatList(
  api: ApiClient,
  search: string,
  page: number,
  signal: AbortSignal,
): Promise<ChatListPage> {
  const body = await unwrap(
    api.http.GET('/api/data-agent/chats', {
      params: {
        query: { page, pageSize: CHAT_PAGE_SIZE, sortBy: 'updatedAt', sortOrder: 'desc', search: search || undefined },
      },
      signal,
    }),
  );
  return { chats: body.items.map(toChatSummary), total: body.total };
}

/** The page after `page`, if the list has more chats than the pages up to it hold. */
function nextPage(last: ChatListPage, page: number): number | undefined {
  return page * CHAT_PAGE_SIZE < last.total ? page + 1 : undefined;
}

export interface DataAgentState {
  /** The chats of the pages loaded so far. */
  chats: ChatSummary[];
  /** Chats in the whole list (for the current search). */
  total: number;
  /** The list has chats beyond the pages loaded. */
  hasMore: boolean;
  /** The next page is being loaded. */
  loadingMore: boolean;
  /** Loads the next page (nothing when there is none, or it is loading). */
  loadMore: () => void;
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

  const list = useInfiniteQuery({
    queryKey: queryKeys.chatList(query),
    queryFn: ({ pageParam, signal }) => fetchChatList(api, query, pageParam, signal),
    initialPageParam: 1,
    getNextPageParam: (last, _pages, page) => nextPage(last, page),
    // While the next search loads, the last list stays (with a progress bar).
    placeholderData: keepPreviousData,
    refetchOnWindowFocus: true,
  });
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = list;
  const loadMore = useCallback(() => {
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);
  const pages = list.data?.pages;
  const chats = useMemo(() => chatsOfPages(pages ?? []), [pages]);

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
    chats,
    total: pages?.at(-1)?.total ?? 0,
    hasMore: hasNextPage && !list.isPlaceholderData,
    loadingMore: isFetchingNextPage,
    loadMore,
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
