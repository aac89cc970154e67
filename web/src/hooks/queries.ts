// The page's query cache: how it is built (one per app, never a module global) and the keys
// of what it holds. Server state lives here; the answer being streamed lives in the chat
// view's own store (useDataChat).

import { QueryClient } from '@tanstack/react-query';
import { ApiError } from '../api/client';

/** A fetched value counts as fresh this long: moving between chats does not refetch at once. */
export const STALE_TIME_MS = 30_000;

export const queryKeys = {
  /** Who is signed in: `CurrentUser | null`. */
  session: ['session'] as const,
  ontologies: ['ontologies'] as const,
  providers: ['providers'] as const,
  suggestions: (ontologyId: string) => ['ontologies', ontologyId, 'suggestions'] as const,
  /** Every page of the chat list (whatever the search). */
  chatLists: ['chats', 'list'] as const,
  chatList: (search: string) => ['chats', 'list', { search }] as const,
  /** One chat with its messages, as the API gives it (ChatWithMessages). */
  chat: (chatId: string) => ['chats', 'detail', chatId] as const,
};

/** A 4xx is an answer (not found, forbidden, refused): asking again would not change it. */
export function isClientError(error: unknown): boolean {
  return error instanceof ApiError && error.status >= 400 && error.status < 500;
}

export interface QueryClientOptions {
  /** Retry failed reads (network, 5xx) at all; tests turn it off. Default true. */
  retry?: boolean;
}

/** The app's QueryClient (App builds one; tests build their own). */
export function createQueryClient({ retry = true }: QueryClientOptions = {}): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: STALE_TIME_MS,
        // Only the chat list follows window focus (it asks for that itself).
        refetchOnWindowFocus: false,
        retry: (failures, error) => retry && !isClientError(error) && failures < 2,
      },
      mutations: { retry: false },
    },
  });
}
