// Reading and writing chats in the query cache: the chat list, page by page (mapped to
// ChatSummary), and one chat with its messages (the API's ChatWithMessages, mapped when read).

import type { InfiniteData, QueryClient } from '@tanstack/react-query';
import { unwrap, type ApiClient, type Schemas } from '../api/client';
import type { ChatSummary } from '../types';
import { queryKeys } from './queries';

export type ChatWithMessages = Schemas['ChatWithMessages'];
export type MessagePair = Schemas['MessagePair'];

/** One page of the chat list as the cache holds it. */
export interface ChatListPage {
  chats: ChatSummary[];
  /** Chats in the whole list (every page) when this page was read. */
  total: number;
}

/** A chat list (one search) as the cache holds it: the pages loaded so far, by page number. */
export type ChatListPages = InfiniteData<ChatListPage, number>;

/** Stores a question (POST .../messages): its answer is then claimed by whoever follows it. */
export function postMessage(api: ApiClient, chatId: string, content: string): Promise<MessagePair> {
  return unwrap(
    api.http.POST('/api/data-agent/chats/{chat_id}/messages', {
      params: { path: { chat_id: chatId } },
      body: { content },
    }),
  );
}

/**
 * Asks a question again (POST .../regenerate): a new placeholder answering the question that
 * `messageId` answered; the old answer stays. Answers like postMessage (the question, already
 * in the chat, and the new placeholder), claimed the same way.
 */
export function regenerateAnswer(api: ApiClient, chatId: string, messageId: string): Promise<MessagePair> {
  return unwrap(
    api.http.POST('/api/data-agent/chats/{chat_id}/messages/{message_id}/regenerate', {
      params: { path: { chat_id: chatId, message_id: messageId } },
    }),
  );
}

/**
 * A question and its answer just stored, in the cached chat if it is cached: a message it
 * holds already (the question asked again) is updated where it is, a new one appended.
 */
export function addMessagePair(queryClient: QueryClient, chatId: string, pair: MessagePair) {
  queryClient.setQueryData<ChatWithMessages>(queryKeys.chat(chatId), (old) => {
    if (!old) return old;
    const messages = [...old.messages];
    for (const message of [pair.userMessage, pair.assistantMessage]) {
      const at = messages.findIndex((m) => m.id === message.id);
      if (at === -1) messages.push(message);
      else messages[at] = message;
    }
    return { ...old, messages };
  });
}

/** Applies `update` to every cached page of every chat list (`index` 0: the first page). */
export function updateChatLists(
  queryClient: QueryClient,
  update: (page: ChatListPage, index: number) => ChatListPage,
) {
  queryClient.setQueriesData<ChatListPages>(
    { queryKey: queryKeys.chatLists },
    (old) => old && { ...old, pages: old.pages.map(update) },
  );
}

/**
 * The chats of the pages loaded, in order, each once: a chat that moved between pages as the
 * list changed (a new answer puts it first) may be on two of them.
 */
export function chatsOfPages(pages: readonly ChatListPage[]): ChatSummary[] {
  const seen = new Set<string>();
  return pages
    .flatMap((page) => page.chats)
    .filter((chat) => {
      if (seen.has(chat.id)) return false;
      seen.add(chat.id);
      return true;
    });
}

/** The chat list (its order and names) and this chat are out of date: fetch them again. */
export function invalidateChat(queryClient: QueryClient, chatId: string) {
  void queryClient.invalidateQueries({ queryKey: queryKeys.chatLists });
  void queryClient.invalidateQueries({ queryKey: queryKeys.chat(chatId) });
}
