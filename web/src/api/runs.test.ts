import { createApiClient } from './client';
import { errorResponse, fakeNetwork, frame, jsonResponse, sseResponse, type Handler } from './fakeFetch';
import { cancelAnswer, CONNECTION_LOST_MESSAGE, followAnswer, type AnswerEvent } from './runs';

const BASE = '/api/data-agent/chats/c1/messages/m2';
const STREAM = `${BASE}/stream`;
const EVENTS = `${BASE}/events`;

const F = [
  frame(1, 'message_start', { messageId: 'm2', chatId: 'c1', runId: 'r1', startedAt: '2026-01-01T00:00:00+00:00' }),
  frame(2, 'message_chunk', { chunk: 'Hou' }),
  frame(3, 'message_chunk', { chunk: 'ston' }),
  frame(4, 'message_chunk', { chunk: ' has 12.' }),
  frame(5, 'message_complete', { messageId: 'm2', content: 'Houston has 12.', metadata: {} }),
];

function setup(handler: Handler) {
  const net = fakeNetwork(handler);
  const api = createApiClient({ fetch: net.fetch, baseUrl: 'http://test' });
  const events: AnswerEvent[] = [];
  const sleeps: number[] = [];
  const sleep = async (ms: number) => {
    sleeps.push(ms);
  };
  return { net, api, events, sleeps, sleep, onEvent: (e: AnswerEvent) => events.push(e) };
}

describe('followAnswer', () => {
  it('claims a new answer with POST .../stream and reads it to message_complete', async () => {
    const t = setup(() => sseResponse({ chunks: [F.join('')] }));
    const outcome = await followAnswer(t.api, { chatId: 'c1', messageId: 'm2', start: 'claim', onEvent: t.onEvent, sleep: t.sleep });
    expect(outcome).toEqual({ kind: 'ended', event: 'message_complete' });
    expect(t.net.calls()).toEqual([`POST ${STREAM}`]);
    expect(t.net.requests[0].headers.get('Accept')).toBe('text/event-stream');
    expect(t.net.requests[0].headers.has('Last-Event-ID')).toBe(false);
    expect(t.events.map((e) => e.id)).toEqual([1, 2, 3, 4, 5]);
    expect(t.events[1]).toEqual({ id: 2, event: 'message_chunk', data: { chunk: 'Hou' } });
  });

  it('reconnects after a drop with Last-Event-ID and delivers no event twice', async () => {
    const t = setup((req) => {
      if (req.path === STREAM) return sseResponse({ chunks: [F[0], F[1], F[2].slice(0, 20)], end: 'drop' });
      // The server resumes after the id sent; this one overlaps to prove the dedupe.
      return sseResponse({ chunks: [F[1] + F[2], F[3], F[4]] });
    });
    const outcome = await followAnswer(t.api, { chatId: 'c1', messageId: 'm2', start: 'claim', onEvent: t.onEvent, sleep: t.sleep });
    expect(outcome).toEqual({ kind: 'ended', event: 'message_complete' });
    expect(t.net.calls()).toEqual([`POST ${STREAM}`, `GET ${EVENTS}`]);
    expect(t.net.requests[1].headers.get('Last-Event-ID')).toBe('2');
    expect(t.events.map((e) => e.id)).toEqual([1, 2, 3, 4, 5]);
    expect(t.sleeps).toEqual([500]);
  });

  it('reconnects when the stream closes before the answer ended', async () => {
    let n = 0;
    const t = setup(() => {
      n += 1;
      return n === 1 ? sseResponse({ chunks: [F[0] + F[1]] }) : sseResponse({ chunks: [F[2], F[3], F[4]] });
    });
    const outcome = await followAnswer(t.api, { chatId: 'c1', messageId: 'm2', start: 'claim', onEvent: t.onEvent, sleep: t.sleep });
    expect(outcome.kind).toBe('ended');
    expect(t.net.calls()).toEqual([`POST ${STREAM}`, `GET ${EVENTS}`]);
    expect(t.net.requests[1].headers.get('Last-Event-ID')).toBe('2');
    expect(t.events.map((e) => e.id)).toEqual([1, 2, 3, 4, 5]);
  });

  it('attaches on page load with a full replay (no Last-Event-ID)', async () => {
    const t = setup(() => sseResponse({ chunks: F }));
    const outcome = await followAnswer(t.api, { chatId: 'c1', messageId: 'm2', start: 'attach', onEvent: t.onEvent, sleep: t.sleep });
    expect(outcome.kind).toBe('ended');
    expect(t.net.calls()).toEqual([`GET ${EVENTS}`]);
    expect(t.net.requests[0].headers.has('Last-Event-ID')).toBe(false);
    expect(t.events).toHaveLength(5);
  });

  it('claims with POST .../stream when the events are 404 (not claimed yet)', async () => {
    const t = setup((req) =>
      req.path === EVENTS ? errorResponse(404, 'NOT_FOUND', 'No answer has started.') : sseResponse({ chunks: F }),
    );
    const outcome = await followAnswer(t.api, { chatId: 'c1', messageId: 'm2', start: 'attach', onEvent: t.onEvent, sleep: t.sleep });
    expect(outcome.kind).toBe('ended');
    expect(t.net.calls()).toEqual([`GET ${EVENTS}`, `POST ${STREAM}`]);
    expect(t.sleeps).toEqual([]);
  });

  it('does not claim on a 404 when claiming is not allowed', async () => {
    const t = setup(() => errorResponse(404, 'NOT_FOUND', 'No answer has started.'));
    const outcome = await followAnswer(t.api, {
      chatId: 'c1', messageId: 'm2', start: 'attach', allowClaim: false, onEvent: t.onEvent, sleep: t.sleep,
    });
    expect(outcome).toMatchObject({ kind: 'failed', error: { status: 404 } });
    expect(t.net.calls()).toEqual([`GET ${EVENTS}`]);
  });

  it('reads the log with GET .../events when the claim is 409 (claimed already)', async () => {
    const t = setup((req) =>
      req.path === STREAM
        ? errorResponse(409, 'CONFLICT', 'This message is already being answered.')
        : sseResponse({ chunks: F }),
    );
    const outcome = await followAnswer(t.api, { chatId: 'c1', messageId: 'm2', start: 'claim', onEvent: t.onEvent, sleep: t.sleep });
    expect(outcome.kind).toBe('ended');
    expect(t.net.calls()).toEqual([`POST ${STREAM}`, `GET ${EVENTS}`]);
    expect(t.events.map((e) => e.id)).toEqual([1, 2, 3, 4, 5]);
  });

  it('fails at once with the server\'s sentence on 503 LLM_UNAVAILABLE', async () => {
    const sentence = 'No language model is configured: set OPENAI_API_KEY, then restart.';
    const t = setup(() => errorResponse(503, 'LLM_UNAVAILABLE', sentence));
    const outcome = await followAnswer(t.api, { chatId: 'c1', messageId: 'm2', start: 'claim', onEvent: t.onEvent, sleep: t.sleep });
    expect(outcome).toMatchObject({ kind: 'failed', error: { status: 503, code: 'LLM_UNAVAILABLE', message: sentence } });
    expect(t.net.calls()).toHaveLength(1);
  });

  it('backs off and gives up after the retries, keeping what it delivered', async () => {
    let n = 0;
    const t = setup(() => {
      n += 1;
      if (n === 1) return sseResponse({ chunks: [F[0], F[1]], end: 'drop' });
      throw new TypeError('Failed to fetch');
    });
    const outcome = await followAnswer(t.api, {
      chatId: 'c1', messageId: 'm2', start: 'claim', onEvent: t.onEvent, sleep: t.sleep, maxRetries: 7,
    });
    expect(outcome).toMatchObject({ kind: 'failed', error: { code: 'NETWORK_ERROR', message: CONNECTION_LOST_MESSAGE } });
    expect(t.sleeps).toEqual([500, 1000, 2000, 4000, 5000, 5000, 5000]);
    // The claim, seven reconnections, then the stored message (unreachable too).
    expect(t.net.requests).toHaveLength(9);
    expect(t.net.requests.slice(1, 8).every((r) => r.headers.get('Last-Event-ID') === '2')).toBe(true);
    expect(t.net.calls().at(-1)).toBe(`GET ${BASE}`);
    expect(t.events.map((e) => e.id)).toEqual([1, 2]);
  });

  it('after the last try, asks the stored message and reports an answer that ended meanwhile', async () => {
    const stored = { id: 'm2', chatId: 'c1', role: 'assistant', content: 'Houston has 12.', status: 'complete', metadata: {}, createdAt: 'x' };
    const t = setup((req) => {
      if (req.path === STREAM) return sseResponse({ chunks: [F[0], F[1]], end: 'drop' });
      if (req.path === EVENTS) return errorResponse(502, 'HTTP_502', 'Bad gateway.');
      if (req.method === 'GET' && req.path === BASE) return jsonResponse(200, { data: stored });
      return errorResponse(404, 'NOT_FOUND', 'no');
    });
    const outcome = await followAnswer(t.api, {
      chatId: 'c1', messageId: 'm2', start: 'claim', onEvent: t.onEvent, sleep: t.sleep, maxRetries: 3,
    });
    expect(outcome).toEqual({ kind: 'stored', message: stored });
    expect(t.net.calls()).toEqual([`POST ${STREAM}`, `GET ${EVENTS}`, `GET ${EVENTS}`, `GET ${EVENTS}`, `GET ${BASE}`]);
  });

  it('calls the answer lost when the stored message is still generating, or cannot be read', async () => {
    for (const asked of [
      () => jsonResponse(200, { data: { id: 'm2', chatId: 'c1', role: 'assistant', content: '', status: 'generating', metadata: {}, createdAt: 'x' } }),
      () => errorResponse(502, 'HTTP_502', 'Bad gateway.'),
      () => {
        throw new TypeError('Failed to fetch');
      },
    ]) {
      const t = setup((req) => {
        if (req.method === 'GET' && req.path === BASE) return asked();
        throw new TypeError('Failed to fetch');
      });
      const outcome = await followAnswer(t.api, {
        chatId: 'c1', messageId: 'm2', start: 'attach', onEvent: t.onEvent, sleep: t.sleep, maxRetries: 2,
      });
      expect(outcome).toMatchObject({ kind: 'failed', error: { code: 'NETWORK_ERROR', message: CONNECTION_LOST_MESSAGE } });
      expect(t.net.calls().at(-1)).toBe(`GET ${BASE}`);
    }
  });

  it('does not ask the stored message when aborted while waiting to reconnect', async () => {
    const controller = new AbortController();
    const t = setup(() => {
      throw new TypeError('Failed to fetch');
    });
    const outcome = await followAnswer(t.api, {
      chatId: 'c1', messageId: 'm2', start: 'attach', onEvent: t.onEvent, maxRetries: 1, signal: controller.signal,
      sleep: async () => controller.abort(),
    });
    expect(outcome).toEqual({ kind: 'aborted' });
    expect(t.net.calls()).toEqual([`GET ${EVENTS}`]);
  });

  it('stops when aborted, mid-stream', async () => {
    const controller = new AbortController();
    const t = setup(() => sseResponse({ chunks: [F[0], F[1]], end: 'hang' }));
    const following = followAnswer(t.api, {
      chatId: 'c1', messageId: 'm2', start: 'claim', signal: controller.signal, sleep: t.sleep,
      onEvent: (e) => {
        t.events.push(e);
        if (e.id === 2) controller.abort();
      },
    });
    await expect(following).resolves.toEqual({ kind: 'aborted' });
    expect(t.net.calls()).toHaveLength(1);
  });
});

describe('cancelAnswer', () => {
  it('posts to .../cancel', async () => {
    const t = setup(() => jsonResponse(202, { data: { id: 'r1', cancelRequested: true } }));
    await cancelAnswer(t.api, 'c1', 'm2');
    expect(t.net.calls()).toEqual([`POST ${BASE}/cancel`]);
  });

  it('treats 409 (already finished) as done, and throws other errors', async () => {
    const done = setup(() => errorResponse(409, 'CONFLICT', 'The answer has already finished.'));
    await expect(cancelAnswer(done.api, 'c1', 'm2')).resolves.toBeUndefined();
    const denied = setup(() => errorResponse(403, 'FORBIDDEN', 'You may not.'));
    await expect(cancelAnswer(denied.api, 'c1', 'm2')).rejects.toMatchObject({ message: 'You may not.' });
  });
});
