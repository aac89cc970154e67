// Changing chats: create, rename, delete, and storing a question. Each keeps the cached
// chat list and chat in step with the server's answer, then has the list fetched again.

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useApi } from '../api/ApiContext';
import { expectOk, unwrap, type Schemas } from '../api/client';
import type { NewChatInput } from '../components/data-agent/NewChatDialog';
import { addMessagePair, postMessage, updateChatLists } from './chatCache';
import { toChatSummary } from './chatSummary';
import { queryKeys } from './queries';

type Provider = NonNullable<Schemas['ChatCreate']['llmProvider']>;

export function useCreateChat() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: NewChatInput) => {
      const name = input.name?.trim();
      return unwrap(
        api.http.POST('/api/data-agent/chats', {
          body: {
            ontologyId: input.ontologyId,
            // "New chat" is the API's own default: the chat is named from its first question.
            name: name || 'New chat',
            ...(input.llmProvider ? { llmProvider: input.llmProvider as Provider } : {}),
            ...(input.agentMode ? { agentMode: input.agentMode } : {}),
          },
        }),
      );
    },
    onSuccess: (created) => {
      // The new chat, with its (no) messages, is known: opening it needs no fetch.
      queryClient.setQueryData(queryKeys.chat(created.id), created);
      const chat = toChatSummary(created);
      updateChatLists(queryClient, (page, index) => {
        const others = page.chats.filter((c) => c.id !== chat.id);
        return { chats: index === 0 ? [chat, ...others] : others, total: page.total + 1 };
      });
      void queryClient.invalidateQueries({ queryKey: queryKeys.chatLists });
    },
  });
}

export function useRenameChat() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ chatId, name }: { chatId: string; name: string }) =>
      unwrap(
        api.http.PATCH('/api/data-agent/chats/{chat_id}', {
          params: { path: { chat_id: chatId } },
          body: { name: name.trim() },
        }),
      ),
    onSuccess: (renamed) => {
      const chat = toChatSummary(renamed);
      updateChatLists(queryClient, (page) => ({ ...page, chats: page.chats.map((c) => (c.id === chat.id ? chat : c)) }));
      queryClient.setQueryData<Schemas['ChatWithMessages']>(queryKeys.chat(chat.id), (old) =>
        old && { ...old, ...renamed, messages: old.messages },
      );
      void queryClient.invalidateQueries({ queryKey: queryKeys.chatLists });
    },
  });
}

export function useDeleteChat() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (chatId: string) =>
      expectOk(api.http.DELETE('/api/data-agent/chats/{chat_id}', { params: { path: { chat_id: chatId } } })),
    onSuccess: (_, chatId) => {
      updateChatLists(queryClient, (page) => ({
        chats: page.chats.filter((c) => c.id !== chatId),
        total: Math.max(0, page.total - 1),
      }));
      // Forgotten; while the page still shows it (and is about to leave it), only marked out of
      // date: fetching it again would be a 404 logged in the browser's console.
      queryClient.removeQueries({ queryKey: queryKeys.chat(chatId), type: 'inactive' });
      void queryClient.invalidateQueries({ queryKey: queryKeys.chat(chatId), refetchType: 'none' });
      void queryClient.invalidateQueries({ queryKey: queryKeys.chatLists });
    },
  });
}

/**
 * Stores a question (POST .../messages) in a chat this page does not show yet (a suggestion
 * asked from the no-chat screen); the chat view claims its answer. useDataChat has its own,
 * which starts following the answer as the question is stored.
 */
export function useSendMessage() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ chatId, content }: { chatId: string; content: string }) => postMessage(api, chatId, content),
    onSuccess: (pair, { chatId }) => {
      addMessagePair(queryClient, chatId, pair);
      void queryClient.invalidateQueries({ queryKey: queryKeys.chatLists });
    },
  });
}
