// Reading and writing chats in the query cache: the list pages (mapped to ChatSummary) and
// one chat with its messages (the API's ChatWithMessages, mapped when read).

import type { QueryClient } from '@tanstack/react-query';
import { unwrap, type ApiClient, type Schemas } from '../api/client';
import type { ChatSummary } from '../types';
import { queryKeys } from './queries';

export type ChatWithMessages = Schemas['ChatWithMessages'];
export type MessagePair = Schemas['MessagePair'];

/** One page of the chat list as the cache holds it. */
export interface ChatListPage {
  chats: ChatSummary[];
  total: number;
}

/** Stores a question (POST .../messages): its answer is then claimed by whoever follows it. */
export function postMessage(api: ApiClient, chatId: string, content: string): Promise<MessagePair> {
  return unwrap(
    api.http.POST('/api/data-agent/chats/{chat_id}/messages', {
      params: { path: { chat_id: chatId } },
      body: { content },
    }),
  );
}

/** A question and its answer just stored: appended to the cached chat, if it is cached. */
export function addMessagePair(queryClient: QueryClient, chatId: string, pair: MessagePair) {
  const ids = new Set([pair.userMessage.id, pair.assistantMessage.id]);
  queryClient.setQueryData<ChatWithMessages>(queryKeys.chat(chatId), (old) =>
    old && {
      ...old,
      messages: [...old.messages.filter((m) => !ids.has(m.id)), pair.userMessage, pair.assistantMessage],
    },
  );
}

/** Applies `update` to every cached page of the chat list. */
export function updateChatLists(queryClient: QueryClient, update: (page: ChatListPage) => ChatListPage) {
  queryClient.setQueriesData<ChatListPage>({ queryKey: queryKeys.chatLists }, (old) => old && update(old));
}

/** The chat list (its order and names) and this chat are out of date: fetch them again. */
export function invalidateChat(queryClient: QueryClient, chatId: string) {
  void queryClient.invalidateQueries({ queryKey: queryKeys.chatLists });
  void queryClient.invalidateQueries({ queryKey: queryKeys.chat(chatId) });
}
