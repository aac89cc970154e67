import { act, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { ApiProvider } from '../api/ApiContext';
import { createApiClient } from '../api/client';
import {
  errorResponse,
  fakeNetwork,
  frame,
  jsonResponse,
  liveSse,
  type FakeRequest,
  type Handler,
  type LiveStream,
} from '../api/fakeFetch';
import { CONNECTION_LOST_MESSAGE } from '../api/runs';
import { chat, message, testQueryClient } from '../pages/testApp';
import { useDataChat } from './useDataChat';

const BASE = '/api/data-agent/chats/c1';

/** Reconnecting at once: a test does not wait out the real delays. */
const noWait = async () => undefined;

function setup(handler: Handler, canWrite = true, claimMessageId: string | null = null) {
  const network = fakeNetwork(handler);
  const client = createApiClient({ fetch: network.fetch, baseUrl: 'http://test' });
  const queryClient = testQueryClient();
  const onError = vi.fn();
  const wrapper = ({ children }: { children: ReactNode }) => <ApiProvider client={client} queryClient={queryClient}>{children}</ApiProvider>;
  const hook = renderHook(() => useDataChat('c1', { canWrite, onError, claimMessageId, sleep: noWait }), { wrapper });
  return { network, hook, onError, queryClient };
}

function chatWith(messages: ReturnType<typeof message>[]) {
  return jsonResponse(200, { data: { ...chat('c1', 'Revenue'), messages } });
}

/** The chat's stored messages: GET answers them, POST .../messages stores PAIR as the server does. */
function storedChat(messages: ReturnType<typeof message>[] = []) {
  const stored = [...messages];
  return {
    stored,
    handle(req: FakeRequest): Response | undefined {
      if (req.method === 'GET' && req.path === BASE) return chatWith(stored);
      if (req.method === 'POST' && req.path === `${BASE}/messages`) {
        stored.push(PAIR.userMessage, PAIR.assistantMessage);
        return jsonResponse(201, { data: PAIR });
      }
      return undefined;
    },
  };
}

const PAIR = {
  userMessage: message('m1', 'user', 'How many customers?'),
  assistantMessage: message('m2', 'assistant', '', 'generating'),
};

describe('useDataChat', () => {
  it('sends a question, claims its answer and follows it to the end', async () => {
    let stream!: LiveStream;
    const server = storedChat();
    const t = setup((req) => {
      const stored = server.handle(req);
      if (stored) return stored;
      if (req.method === 'POST' && req.path === `${BASE}/messages/m2/stream`) {
        stream = liveSse();
        return stream.response;
      }
      return errorResponse(404, 'NOT_FOUND', 'no');
    });
    await waitFor(() => expect(t.hook.result.current.status).toBe('ready'));

    await act(() => t.hook.result.current.send('  How many customers?  '));
    expect(JSON.parse(t.network.requests.find((r) => r.path === `${BASE}/messages`)!.body)).toEqual({
      content: 'How many customers?',
    });
    expect(t.hook.result.current.messages.map((m) => m.id)).toEqual(['m1', 'm2']);
    await waitFor(() => expect(t.hook.result.current.isStreaming).toBe(true));

    await act(async () => {
      stream.push(frame(1, 'message_start', { messageId: 'm2', chatId: 'c1', runId: 'r1', startedAt: 'x' }));
      stream.push(frame(2, 'message_chunk', { chunk: 'Forty' }));
    });
    await waitFor(() => expect(t.hook.result.current.messages[1].content).toBe('Forty'));
    expect(t.hook.result.current.isStreaming).toBe(true);

    await act(async () => {
      stream.push(frame(3, 'message_complete', { messageId: 'm2', content: 'Forty-two.', metadata: {} }));
    });
    await waitFor(() => expect(t.hook.result.current.isStreaming).toBe(false));
    expect(t.hook.result.current.messages[1]).toMatchObject({ status: 'complete', content: 'Forty-two.' });
    // The answer ended: the chat is fetched again (its name and messages changed).
    await waitFor(() => expect(t.network.calls().filter((c) => c === `GET ${BASE}`)).toHaveLength(2));
    expect(t.hook.result.current.messages[1]).toMatchObject({ status: 'complete', content: 'Forty-two.' });
  });

  it('shows the server\'s sentence in the answer when there is no model (503)', async () => {
    const sentence = 'No language model is configured: set OPENAI_API_KEY, then restart.';
    const server = storedChat();
    const t = setup((req) => server.handle(req) ?? errorResponse(503, 'LLM_UNAVAILABLE', sentence));
    await waitFor(() => expect(t.hook.result.current.status).toBe('ready'));
    await act(() => t.hook.result.current.send('How many customers?'));
    await waitFor(() => expect(t.hook.result.current.isStreaming).toBe(false));
    expect(t.hook.result.current.messages[1]).toMatchObject({
      status: 'failed',
      error: { code: 'LLM_UNAVAILABLE', message: sentence },
    });
    expect(t.network.calls().filter((c) => c.endsWith('/stream'))).toHaveLength(1);
  });

  it('reports a question the server refused and keeps the chat as it was', async () => {
    const t = setup((req) => {
      if (req.method === 'GET' && req.path === BASE) return chatWith([]);
      return errorResponse(429, 'RATE_LIMITED', 'You already have an answer being generated; wait for it or cancel it.');
    });
    await waitFor(() => expect(t.hook.result.current.status).toBe('ready'));
    let sent = true;
    await act(async () => {
      sent = await t.hook.result.current.send('Again?');
    });
    expect(sent).toBe(false);
    expect(t.onError).toHaveBeenCalledWith('You already have an answer being generated; wait for it or cancel it.');
    expect(t.hook.result.current.messages).toEqual([]);
  });

  it('stop posts to .../cancel and the stream ends the answer as cancelled', async () => {
    let stream!: LiveStream;
    const t = setup((req) => {
      if (req.method === 'GET' && req.path === BASE) {
        return chatWith([message('m1', 'user', 'Q'), message('m2', 'assistant', '', 'generating')]);
      }
      if (req.path === `${BASE}/messages/m2/events`) {
        stream = liveSse();
        stream.push(frame(1, 'message_start', { messageId: 'm2', chatId: 'c1', runId: 'r1', startedAt: 'x' }));
        stream.push(frame(2, 'message_chunk', { chunk: 'Part' }));
        return stream.response;
      }
      if (req.path === `${BASE}/messages/m2/cancel`) {
        queueMicrotask(() =>
          stream.push(frame(3, 'message_error', { messageId: 'm2', message: 'Cancelled.', code: 'CANCELLED', partialContent: 'Part' })),
        );
        return jsonResponse(202, { data: { id: 'r1', cancelRequested: true } });
      }
      return errorResponse(404, 'NOT_FOUND', 'no');
    });
    await waitFor(() => expect(t.hook.result.current.messages[1]?.content).toBe('Part'));
    expect(t.hook.result.current.isStreaming).toBe(true);
    act(() => t.hook.result.current.stop());
    await waitFor(() => expect(t.hook.result.current.isStreaming).toBe(false));
    expect(t.network.calls()).toContain(`POST ${BASE}/messages/m2/cancel`);
    expect(t.hook.result.current.messages[1]).toMatchObject({
      status: 'failed',
      content: 'Part',
      error: { code: 'CANCELLED' },
    });
  });

  it('claims an answer found unclaimed on load (its events are 404)', async () => {
    const t = setup((req) => {
      if (req.method === 'GET' && req.path === BASE) {
        return chatWith([message('m1', 'user', 'Q'), message('m2', 'assistant', '', 'generating')]);
      }
      if (req.path.endsWith('/events')) return errorResponse(404, 'NOT_FOUND', 'No answer has started.');
      if (req.path.endsWith('/stream')) {
        const stream = liveSse();
        stream.push(frame(1, 'message_complete', { messageId: 'm2', content: 'Done.', metadata: {} }));
        return stream.response;
      }
      return errorResponse(404, 'NOT_FOUND', 'no');
    });
    await waitFor(() => expect(t.hook.result.current.messages[1]?.content).toBe('Done.'));
    await waitFor(() =>
      expect(t.network.calls()).toEqual([
        `GET ${BASE}`,
        `GET ${BASE}/messages/m2/events`,
        `POST ${BASE}/messages/m2/stream`,
        `GET ${BASE}`, // the answer ended: the chat again
      ]),
    );
  });

  it('claims at once an answer the page has just asked for', async () => {
    const t = setup(
      (req) => {
        if (req.method === 'GET' && req.path === BASE) {
          return chatWith([message('m1', 'user', 'Q'), message('m2', 'assistant', '', 'generating')]);
        }
        const stream = liveSse();
        stream.push(frame(1, 'message_complete', { messageId: 'm2', content: 'Done.', metadata: {} }));
        return stream.response;
      },
      true,
      'm2',
    );
    await waitFor(() => expect(t.hook.result.current.messages[1]?.content).toBe('Done.'));
    await waitFor(() => expect(t.network.calls()).toEqual([`GET ${BASE}`, `POST ${BASE}/messages/m2/stream`, `GET ${BASE}`]));
  });

  it('a viewer replays an answer but never claims one', async () => {
    const t = setup((req) => {
      if (req.method === 'GET' && req.path === BASE) {
        return chatWith([message('m1', 'user', 'Q'), message('m2', 'assistant', '', 'generating')]);
      }
      return errorResponse(404, 'NOT_FOUND', 'No answer has started.');
    }, false);
    await waitFor(() => expect(t.hook.result.current.isStreaming).toBe(false));
    await waitFor(() => expect(t.network.calls()).toContain(`GET ${BASE}/messages/m2/events`));
    expect(t.network.calls().some((c) => c.endsWith('/stream'))).toBe(false);
    expect(t.hook.result.current.messages[1].status).toBe('generating');
  });

  it('regenerates an answer: a new placeholder after the old answer, claimed and followed like a question', async () => {
    const question = message('m1', 'user', 'How many customers?');
    const first = message('m2', 'assistant', 'Forty.');
    const again = message('m3', 'assistant', '', 'generating');
    const stored = [question, first];
    let stream!: LiveStream;
    const t = setup((req) => {
      if (req.method === 'GET' && req.path === BASE) return chatWith(stored);
      if (req.method === 'POST' && req.path === `${BASE}/messages/m2/regenerate`) {
        stored.push(again);
        return jsonResponse(201, { data: { userMessage: question, assistantMessage: again } });
      }
      if (req.method === 'POST' && req.path === `${BASE}/messages/m3/stream`) {
        stream = liveSse();
        return stream.response;
      }
      return errorResponse(404, 'NOT_FOUND', 'no');
    });
    await waitFor(() => expect(t.hook.result.current.status).toBe('ready'));

    let asked = false;
    await act(async () => {
      asked = await t.hook.result.current.regenerate('m2');
    });
    expect(asked).toBe(true);
    const post = t.network.requests.find((r) => r.path.endsWith('/regenerate'))!;
    expect(post.body).toBe('');
    // The question is not repeated; the old answer stays, the new one follows it.
    expect(t.hook.result.current.messages.map((m) => [m.id, m.status])).toEqual([
      ['m1', 'complete'],
      ['m2', 'complete'],
      ['m3', 'generating'],
    ]);
    await waitFor(() => expect(t.hook.result.current.isStreaming).toBe(true));
    await act(async () => {
      stream.push(frame(1, 'message_start', { messageId: 'm3', chatId: 'c1', runId: 'r2', startedAt: 'x' }));
      stream.push(frame(2, 'message_complete', { messageId: 'm3', content: 'Forty-two.', metadata: {} }));
    });
    await waitFor(() => expect(t.hook.result.current.isStreaming).toBe(false));
    expect(t.hook.result.current.messages.map((m) => m.content)).toEqual(['How many customers?', 'Forty.', 'Forty-two.']);
    expect(t.network.calls().filter((c) => c.startsWith('POST'))).toEqual([
      `POST ${BASE}/messages/m2/regenerate`,
      `POST ${BASE}/messages/m3/stream`,
    ]);
  });

  it('reports a regenerate the server refused and keeps the chat as it was', async () => {
    const sentence = 'This answer is still being generated; wait for it or stop it.';
    const stored = [message('m1', 'user', 'Q'), message('m2', 'assistant', 'A', 'failed')];
    const t = setup((req) => {
      if (req.method === 'GET' && req.path === BASE) return chatWith(stored);
      return errorResponse(409, 'CONFLICT', sentence);
    });
    await waitFor(() => expect(t.hook.result.current.status).toBe('ready'));
    let asked = true;
    await act(async () => {
      asked = await t.hook.result.current.regenerate('m2');
    });
    expect(asked).toBe(false);
    expect(t.onError).toHaveBeenCalledWith(sentence);
    expect(t.hook.result.current.messages.map((m) => m.id)).toEqual(['m1', 'm2']);
    expect(t.hook.result.current.isStreaming).toBe(false);
  });

  it('shows an answer that finished while the stream stayed lost, as stored, not as failed', async () => {
    const done = { ...message('m2', 'assistant', 'Forty-two.'), metadata: { durationMs: 1200 } };
    let reconnections = 0;
    const t = setup((req) => {
      if (req.method === 'GET' && req.path === BASE) {
        return chatWith([message('m1', 'user', 'Q'), message('m2', 'assistant', '', 'generating')]);
      }
      if (req.path === `${BASE}/messages/m2/events`) {
        reconnections += 1;
        if (reconnections === 1) {
          const stream = liveSse();
          stream.push(frame(1, 'message_start', { messageId: 'm2', chatId: 'c1', runId: 'r1', startedAt: 'x' }));
          stream.push(frame(2, 'message_chunk', { chunk: 'For' }));
          queueMicrotask(() => stream.drop());
          return stream.response;
        }
        // A proxy that no longer lets the stream through; plain requests still work.
        return errorResponse(502, 'HTTP_502', 'Bad gateway.');
      }
      if (req.method === 'GET' && req.path === `${BASE}/messages/m2`) return jsonResponse(200, { data: done });
      return errorResponse(404, 'NOT_FOUND', 'no');
    });
    await waitFor(() => expect(t.hook.result.current.messages[1]?.status).toBe('complete'));
    expect(t.hook.result.current.messages[1]).toMatchObject({ content: 'Forty-two.', durationMs: 1200, error: undefined });
    expect(t.hook.result.current.isStreaming).toBe(false);
    expect(reconnections).toBe(11); // the first connection and ten tries
    expect(t.network.calls()).toContain(`GET ${BASE}/messages/m2`);
  });

  it('calls an answer lost when the stream stays lost and the message is still generating', async () => {
    const t = setup((req) => {
      if (req.method === 'GET' && req.path === BASE) {
        return chatWith([message('m1', 'user', 'Q'), message('m2', 'assistant', '', 'generating')]);
      }
      if (req.method === 'GET' && req.path === `${BASE}/messages/m2`) {
        return jsonResponse(200, { data: message('m2', 'assistant', '', 'generating') });
      }
      return errorResponse(502, 'HTTP_502', 'Bad gateway.');
    });
    await waitFor(() => expect(t.hook.result.current.messages[1]?.status).toBe('failed'));
    expect(t.hook.result.current.messages[1].error).toEqual({ code: 'NETWORK_ERROR', message: CONNECTION_LOST_MESSAGE });
  });

  it('reports a chat that is not there as not found', async () => {
    const t = setup(() => errorResponse(404, 'NOT_FOUND', 'Chat not found.'));
    await waitFor(() => expect(t.hook.result.current.status).toBe('notFound'));
  });
});
