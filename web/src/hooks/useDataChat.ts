// One chat and its answer stream (seed 000's useDataChat): load the chat, re-attach to an
// answer still being written, send a question and follow its answer, stop it.

import { useCallback, useEffect, useRef, useState } from 'react';
import { useApi } from '../api/ApiContext';
import { ApiError, errorMessage, isAbortError, unwrap } from '../api/client';
import { cancelAnswer, followAnswer, type FollowOptions } from '../api/runs';
import type { ChatMessageView, ChatSummary } from '../types';
import { applyAnswerEvent, toMessageView } from './answerReducer';
import { toChatSummary } from './chatSummary';

export type ChatLoadStatus = 'loading' | 'ready' | 'notFound' | 'error';

interface ChatState {
  chatId: string;
  version: number;
  status: Exclude<ChatLoadStatus, 'loading'>;
  chat: ChatSummary | null;
  messages: ChatMessageView[];
  error: string | null;
}

interface Following {
  chatId: string;
  messageId: string;
  controller: AbortController;
}

export interface DataChatOptions {
  /** data_agent:write: may send, stop, and claim an answer not yet started. */
  canWrite: boolean;
  /** The chat changed on the server (a question stored, an answer ended): refresh the list. */
  onChanged?: () => void;
  /** An action failed: a sentence to show. */
  onError?: (message: string) => void;
  /**
   * An answer this page has just asked for and not yet claimed (a suggestion sent from the
   * no-chat screen): claimed at once rather than first asking for its events (a 404).
   */
  claimMessageId?: string | null;
}

export interface DataChatState {
  status: ChatLoadStatus;
  chat: ChatSummary | null;
  messages: ChatMessageView[];
  /** Why the chat could not be loaded (status `error`). */
  error: string | null;
  /** A question is being stored or its answer written. */
  isStreaming: boolean;
  send: (text: string) => Promise<boolean>;
  stop: () => void;
  reload: () => void;
}

export function useDataChat(chatId: string, options: DataChatOptions): DataChatState {
  const api = useApi();
  const { canWrite } = options;
  const callbacks = useRef(options);
  useEffect(() => {
    callbacks.current = options;
  });

  const [version, setVersion] = useState(0);
  const [state, setState] = useState<ChatState | null>(null);
  const [sending, setSending] = useState(false);
  const [streaming, setStreaming] = useState<Following | null>(null);
  const following = useRef<AbortController | null>(null);

  const updateMessage = useCallback((id: string, update: (m: ChatMessageView) => ChatMessageView) => {
    setState((s) => s && { ...s, messages: s.messages.map((m) => (m.id === id ? update(m) : m)) });
  }, []);

  const follow = useCallback(
    (messageId: string, start: FollowOptions['start']) => {
      following.current?.abort();
      const controller = new AbortController();
      following.current = controller;
      setStreaming({ chatId, messageId, controller });
      void followAnswer(api, {
        chatId,
        messageId,
        start,
        allowClaim: canWrite,
        signal: controller.signal,
        onEvent: (e) => updateMessage(messageId, (m) => applyAnswerEvent(m, e.event, e.data)),
      }).then((outcome) => {
        setStreaming((s) => (s?.controller === controller ? null : s));
        if (following.current === controller) following.current = null;
        if (outcome.kind === 'aborted') return;
        // Not started, and this person may not start it: it stays as it is (generating).
        const unclaimed = outcome.kind === 'failed' && outcome.error.status === 404 && start === 'attach' && !canWrite;
        if (outcome.kind === 'failed' && !unclaimed) {
          // Refused (no model, one answer at a time, …) or the connection stayed lost: say
          // why in the message and keep what it had.
          const { code, message } = outcome.error;
          updateMessage(messageId, (m) => ({ ...m, status: 'failed', error: { code, message } }));
        }
        callbacks.current.onChanged?.();
      });
    },
    [api, chatId, canWrite, updateMessage],
  );

  useEffect(() => {
    const controller = new AbortController();
    unwrap(api.http.GET('/api/data-agent/chats/{chat_id}', { params: { path: { chat_id: chatId } }, signal: controller.signal }))
      .then((chat) => {
        if (controller.signal.aborted) return;
        const messages = chat.messages.map(toMessageView);
        setState({ chatId, version, status: 'ready', chat: toChatSummary(chat), messages, error: null });
        // An answer still being written when the page (re)loaded: attach to it and replay.
        const last = messages.at(-1);
        if (last?.role === 'assistant' && last.status === 'generating') {
          follow(last.id, last.id === callbacks.current.claimMessageId && canWrite ? 'claim' : 'attach');
        }
      })
      .catch((error: unknown) => {
        if (controller.signal.aborted || isAbortError(error)) return;
        // A chat that is not there, is not yours, or is not even an id: one answer.
        const notFound = error instanceof ApiError && (error.status === 404 || error.status === 400);
        setState({
          chatId,
          version,
          status: notFound ? 'notFound' : 'error',
          chat: null,
          messages: [],
          error: errorMessage(error),
        });
      });
    return () => {
      controller.abort();
      following.current?.abort();
      following.current = null;
    };
  }, [api, chatId, version, follow, canWrite]);

  const send = useCallback(
    async (text: string) => {
      const content = text.trim();
      if (!content || sending || streaming) return false;
      setSending(true);
      try {
        const pair = await unwrap(
          api.http.POST('/api/data-agent/chats/{chat_id}/messages', {
            params: { path: { chat_id: chatId } },
            body: { content },
          }),
        );
        const user = toMessageView(pair.userMessage);
        const answer = toMessageView(pair.assistantMessage);
        setState((s) => s && s.chatId === chatId ? { ...s, messages: [...s.messages, user, answer] } : s);
        callbacks.current.onChanged?.();
        follow(answer.id, 'claim');
        return true;
      } catch (error) {
        callbacks.current.onError?.(errorMessage(error));
        return false;
      } finally {
        setSending(false);
      }
    },
    [api, chatId, follow, sending, streaming],
  );

  const stop = useCallback(() => {
    if (!streaming) return;
    cancelAnswer(api, streaming.chatId, streaming.messageId).catch((error: unknown) =>
      callbacks.current.onError?.(errorMessage(error)),
    );
  }, [api, streaming]);

  const reload = useCallback(() => setVersion((v) => v + 1), []);

  const current = state?.chatId === chatId && state.version === version ? state : null;
  return {
    status: current?.status ?? 'loading',
    chat: current?.chat ?? null,
    messages: current?.messages ?? [],
    error: current?.error ?? null,
    isStreaming: sending || (streaming !== null && streaming.chatId === chatId),
    send,
    stop,
    reload,
  };
}
