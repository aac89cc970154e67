// One chat and its answer stream (seed 000's useDataChat): the chat with its messages from
// the query cache, re-attaching to an answer still being written, sending a question (or
// asking one again) and following its answer (in this view's own store), stopping it.

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from 'react';
import { useApi } from '../api/ApiContext';
import { ApiError, errorMessage, unwrap, type ApiClient } from '../api/client';
import { cancelAnswer, followAnswer, type FollowOptions } from '../api/runs';
import type { ChatMessageView, ChatSummary } from '../types';
import { toMessageView } from './answerReducer';
import { answerStreamsReducer, mergeAnswers, NO_STREAMS } from './answerStore';
import {
  addMessagePair,
  invalidateChat,
  postMessage,
  regenerateAnswer,
  type ChatWithMessages,
} from './chatCache';
import { toChatSummary } from './chatSummary';
import { queryKeys } from './queries';

export type ChatLoadStatus = 'loading' | 'ready' | 'notFound' | 'error';

export interface DataChatOptions {
  /** data_agent:write: may send, stop, and claim an answer not yet started. */
  canWrite: boolean;
  /** An action failed: a sentence to show. */
  onError?: (message: string) => void;
  /**
   * An answer this page has just asked for and not yet claimed (a suggestion sent from the
   * no-chat screen): claimed at once rather than first asking for its events (a 404). Read
   * when the view mounts.
   */
  claimMessageId?: string | null;
  /** For tests: how following an answer waits before reconnecting (followAnswer's `sleep`). */
  sleep?: FollowOptions['sleep'];
}

export interface DataChatState {
  status: ChatLoadStatus;
  chat: ChatSummary | null;
  messages: ChatMessageView[];
  /** Why the chat could not be loaded (status `error`). */
  error: string | null;
  /** A question is being stored or its answer written. */
  isStreaming: boolean;
  /** Asks a question; false when it was not stored (the reason went to `onError`). */
  send: (text: string) => Promise<boolean>;
  /** Asks the question of answer `messageId` again (Retry, Regenerate); false when refused. */
  regenerate: (messageId: string) => Promise<boolean>;
  stop: () => void;
  reload: () => void;
}

/** What a new answer is asked with: a question, or the answer to ask again. */
type AskRequest = { question: string } | { again: string };

interface ChatData {
  chat: ChatSummary;
  messages: ChatMessageView[];
}

function fetchChat(api: ApiClient, chatId: string, signal: AbortSignal): Promise<ChatWithMessages> {
  return unwrap(api.http.GET('/api/data-agent/chats/{chat_id}', { params: { path: { chat_id: chatId } }, signal }));
}

function toChatData(chat: ChatWithMessages): ChatData {
  return { chat: toChatSummary(chat), messages: chat.messages.map(toMessageView) };
}

export function useDataChat(chatId: string, options: DataChatOptions): DataChatState {
  const api = useApi();
  const queryClient = useQueryClient();
  const { canWrite, sleep } = options;
  const onError = useRef(options.onError);
  useEffect(() => {
    onError.current = options.onError;
  });
  const [claimMessageId] = useState(options.claimMessageId ?? null);

  const query = useQuery({
    queryKey: queryKeys.chat(chatId),
    queryFn: ({ signal }) => fetchChat(api, chatId, signal),
    select: toChatData,
  });

  const [streams, dispatch] = useReducer(answerStreamsReducer, NO_STREAMS);
  /** The connection following an answer now. */
  const following = useRef<AbortController | null>(null);
  /** The last answer this view started following (the load effect does not start it twice). */
  const followed = useRef<string | null>(null);

  const follow = useCallback(
    (message: ChatMessageView, start: FollowOptions['start']) => {
      following.current?.abort();
      const controller = new AbortController();
      following.current = controller;
      followed.current = message.id;
      dispatch({ type: 'start', message });
      const messageId = message.id;
      void followAnswer(api, {
        chatId,
        messageId,
        start,
        allowClaim: canWrite,
        signal: controller.signal,
        sleep,
        onEvent: (e) => dispatch({ type: 'event', messageId, event: e.event, data: e.data }),
      }).then((outcome) => {
        if (following.current === controller) following.current = null;
        if (outcome.kind === 'aborted') return;
        // The stream stayed lost but the answer had ended: show it as stored.
        if (outcome.kind === 'stored') dispatch({ type: 'settle', message: toMessageView(outcome.message) });
        // Not started, and this person may not start it: it stays as it is (generating).
        const unclaimed = outcome.kind === 'failed' && outcome.error.status === 404 && start === 'attach' && !canWrite;
        if (outcome.kind === 'failed' && !unclaimed) {
          // Refused (no model, one answer at a time, …) or the connection stayed lost: say
          // why in the message and keep what it had.
          const { code, message: text } = outcome.error;
          dispatch({ type: 'fail', messageId, error: { code, message: text } });
        }
        dispatch({ type: 'end', messageId });
        // The answer ended: the chat's messages and name, and the list's order, changed.
        invalidateChat(queryClient, chatId);
      });
    },
    [api, chatId, canWrite, queryClient, sleep],
  );

  // An answer still being written when the chat (re)loaded: attach to it and replay.
  const data = query.data;
  useEffect(() => {
    const last = data?.messages.at(-1);
    if (last?.role !== 'assistant' || last.status !== 'generating' || followed.current === last.id) return;
    follow(last, last.id === claimMessageId && canWrite ? 'claim' : 'attach');
  }, [data, follow, claimMessageId, canWrite]);

  useEffect(
    () => () => {
      following.current?.abort();
      following.current = null;
      followed.current = null;
    },
    [],
  );

  // A question and a question asked again take one path: stored, then claimed and followed.
  const askMutation = useMutation({
    mutationFn: (request: AskRequest) =>
      'question' in request
        ? postMessage(api, chatId, request.question)
        : regenerateAnswer(api, chatId, request.again),
    onSuccess: (pair) => {
      // Followed before the cache shows it, so the load effect leaves it to us.
      follow(toMessageView(pair.assistantMessage), 'claim');
      addMessagePair(queryClient, chatId, pair);
      void queryClient.invalidateQueries({ queryKey: queryKeys.chatLists });
    },
  });
  const { mutateAsync: askAsync, isPending: sending } = askMutation;
  const streaming = streams.following;

  const ask = useCallback(
    async (request: AskRequest) => {
      if (sending || streaming) return false;
      try {
        await askAsync(request);
        return true;
      } catch (error) {
        // Forbidden: the ontology may have stopped being shared since the chat was read. The
        // chat (its `ontologyAccess`), the list's markers and the ontologies are read again.
        if (error instanceof ApiError && error.status === 403) {
          invalidateChat(queryClient, chatId);
          void queryClient.invalidateQueries({ queryKey: queryKeys.ontologies, exact: true });
        }
        onError.current?.(errorMessage(error));
        return false;
      }
    },
    [askAsync, sending, streaming, queryClient, chatId],
  );
  const send = useCallback(
    async (text: string) => {
      const question = text.trim();
      return question ? ask({ question }) : false;
    },
    [ask],
  );
  const regenerate = useCallback((messageId: string) => ask({ again: messageId }), [ask]);

  const stop = useCallback(() => {
    if (!streaming) return;
    cancelAnswer(api, chatId, streaming).catch((error: unknown) => onError.current?.(errorMessage(error)));
  }, [api, chatId, streaming]);

  const { refetch } = query;
  const reload = useCallback(() => void refetch(), [refetch]);

  const messages = useMemo(() => mergeAnswers(data?.messages ?? [], streams), [data, streams]);

  let status: ChatLoadStatus = 'loading';
  if (data) status = 'ready';
  else if (query.isError && !query.isFetching) {
    // A chat that is not there, is not yours, or is not even an id: one answer.
    const error = query.error;
    status = error instanceof ApiError && (error.status === 404 || error.status === 400) ? 'notFound' : 'error';
  }
  return {
    status,
    chat: data?.chat ?? null,
    messages: status === 'ready' ? messages : [],
    error: status === 'error' ? errorMessage(query.error) : null,
    isStreaming: sending || streaming !== null,
    send,
    regenerate,
    stop,
    reload,
  };
}
