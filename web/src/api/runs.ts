// Following an answer (a durable run, docs/runs.md) to its end: claim it or attach to it,
// read its events, reconnect after a drop with Last-Event-ID, and never deliver an event
// twice. The run does not depend on the connection, so losing one loses nothing; after the
// last try, the stored message is asked before the answer is called lost.

import { ApiError, isAbortError, toApiError, type ApiClient, type Schemas } from './client';
import { readEventStream } from './sse';

export interface AnswerEvent {
  /** The event's sequence number in its run (1, 2, 3, …); null if the server sent none. */
  id: number | null;
  event: string;
  data: unknown;
}

export type FollowOutcome =
  /** The stream delivered message_complete or message_error. */
  | { kind: 'ended'; event: string }
  /** The server refused (no model, one answer at a time, …) or the connection stayed lost. */
  | { kind: 'failed'; error: ApiError }
  /**
   * The connection stayed lost, but the stored message says the answer ended meanwhile
   * (complete or failed): `message` is it, as the server keeps it.
   */
  | { kind: 'stored'; message: Schemas['MessagePublic'] }
  | { kind: 'aborted' };

export interface FollowOptions {
  chatId: string;
  messageId: string;
  /** `claim`: a new answer (POST .../stream); `attach`: one found generating (GET .../events). */
  start: 'claim' | 'attach';
  /** May an unclaimed answer be claimed (data_agent:write)? Default true. */
  allowClaim?: boolean;
  onEvent: (event: AnswerEvent) => void;
  signal?: AbortSignal;
  /** Waits before reconnecting, by consecutive failure; the last one repeats. */
  retryDelaysMs?: readonly number[];
  /** Consecutive failed connections before giving up. */
  maxRetries?: number;
  /** For tests: how to wait. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export const TERMINAL_EVENTS: ReadonlySet<string> = new Set(['message_complete', 'message_error']);
export const DEFAULT_RETRY_DELAYS_MS = [500, 1000, 2000, 4000, 5000] as const;
export const CONNECTION_LOST_MESSAGE =
  'The connection to the server was lost; reload the page to see the rest of the answer.';

/** A claim refused as taken (409) and an attach refused as unclaimed (404) switch route; bounded. */
const MAX_ROUTE_SWITCHES = 4;

/**
 * Follows one answer until it ends, fails, or `signal` aborts; never throws. Giving up after
 * `maxRetries`, it asks the stored message (getMessage): an answer that ended meanwhile is
 * `stored`, one still generating (or a server still unreachable) is `failed` as lost.
 */
export async function followAnswer(api: ApiClient, options: FollowOptions): Promise<FollowOutcome> {
  const {
    chatId,
    messageId,
    allowClaim = true,
    onEvent,
    signal,
    retryDelaysMs = DEFAULT_RETRY_DELAYS_MS,
    maxRetries = 10,
    sleep = abortableSleep,
  } = options;
  const path = { chat_id: chatId, message_id: messageId };
  let lastId = 0;
  let attach = options.start === 'attach';
  let failures = 0;
  let switches = 0;

  const retry = async (): Promise<boolean> => {
    failures += 1;
    if (failures > maxRetries) return false;
    await sleep(retryDelaysMs[Math.min(failures, retryDelaysMs.length) - 1] ?? 5000, signal);
    return true;
  };
  const aborted = (): FollowOutcome => ({ kind: 'aborted' });
  // Given up on the stream: before calling the answer failed, ask how the message stands.
  const lost = async (): Promise<FollowOutcome> => {
    if (signal?.aborted) return aborted();
    const stored = await storedMessage(api, chatId, messageId, signal);
    if (signal?.aborted) return aborted();
    if (stored && stored.status !== 'generating') return { kind: 'stored', message: stored };
    return { kind: 'failed', error: new ApiError(0, 'NETWORK_ERROR', CONNECTION_LOST_MESSAGE) };
  };

  for (;;) {
    if (signal?.aborted) return aborted();
    const header = lastId > 0 ? { 'Last-Event-ID': lastId } : undefined;
    const init = { params: { path, header }, parseAs: 'stream' as const, headers: { Accept: 'text/event-stream' }, signal };
    let result: Awaited<ReturnType<typeof api.http.GET>> | Awaited<ReturnType<typeof api.http.POST>>;
    try {
      result = attach
        ? await api.http.GET('/api/data-agent/chats/{chat_id}/messages/{message_id}/events', init)
        : await api.http.POST('/api/data-agent/chats/{chat_id}/messages/{message_id}/stream', init);
    } catch (error) {
      if (signal?.aborted || isAbortError(error)) return aborted();
      if (!(await retry())) return await lost();
      continue;
    }

    const { response } = result;
    if (!response.ok) {
      const error = toApiError(response, result.error);
      if (!attach && response.status === 409 && switches < MAX_ROUTE_SWITCHES) {
        // Claimed already (another tab, a double effect): read its log instead.
        switches += 1;
        attach = true;
        continue;
      }
      if (attach && response.status === 404 && allowClaim && switches < MAX_ROUTE_SWITCHES) {
        // Not claimed yet: the question was stored but its answer never asked for.
        switches += 1;
        attach = false;
        continue;
      }
      if (isTransient(error)) {
        if (!(await retry())) return await lost();
        continue;
      }
      return { kind: 'failed', error };
    }

    let terminal: string | null = null;
    let progressed = false;
    const reading = new AbortController();
    const stop = () => reading.abort();
    signal?.addEventListener('abort', stop);
    try {
      await readEventStream(
        response,
        (message) => {
          const id = message.id !== undefined && /^\d+$/.test(message.id) ? Number(message.id) : null;
          if (id !== null) {
            if (id <= lastId) return; // a replay of what was already delivered
            lastId = id;
          }
          progressed = true;
          onEvent({ id, event: message.event, data: parseData(message.data) });
          if (TERMINAL_EVENTS.has(message.event)) {
            terminal = message.event;
            reading.abort(); // nothing follows the last event; do not wait for the close
          }
        },
        reading.signal,
      );
    } catch {
      // A dropped connection (or our own stop after the last event): decided below.
    } finally {
      signal?.removeEventListener('abort', stop);
    }
    if (terminal !== null) return { kind: 'ended', event: terminal };
    if (signal?.aborted) return aborted();
    // The stream ended before the answer did: go on from the run's log after the last id.
    attach = true;
    if (progressed) failures = 0;
    if (!(await retry())) return await lost();
  }
}

/** Asks the server to stop an answer; one that has already finished (409) is no error. */
export async function cancelAnswer(api: ApiClient, chatId: string, messageId: string): Promise<void> {
  let result;
  try {
    result = await api.http.POST('/api/data-agent/chats/{chat_id}/messages/{message_id}/cancel', {
      params: { path: { chat_id: chatId, message_id: messageId } },
    });
  } catch (error) {
    if (isAbortError(error)) return;
    throw new ApiError(0, 'NETWORK_ERROR', 'Could not reach the server to stop the answer.');
  }
  if (!result.response.ok && result.response.status !== 409) {
    throw toApiError(result.response, result.error);
  }
}

/** The message as the server keeps it now; null when that cannot be learnt either. */
async function storedMessage(
  api: ApiClient,
  chatId: string,
  messageId: string,
  signal?: AbortSignal,
): Promise<Schemas['MessagePublic'] | null> {
  try {
    const { data } = await api.http.GET('/api/data-agent/chats/{chat_id}/messages/{message_id}', {
      params: { path: { chat_id: chatId, message_id: messageId } },
      signal,
    });
    return data?.data ?? null;
  } catch {
    return null; // unreachable as well (or aborted): the caller decides
  }
}

function isTransient(error: ApiError): boolean {
  if (error.status === 502 || error.status === 504) return true;
  return error.status === 503 && error.code !== 'LLM_UNAVAILABLE';
}

function parseData(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return data;
  }
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done);
  });
}
