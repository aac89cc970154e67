import { readEventStream, SseParser, type SseMessage } from './sse';

// A transcript as the server writes it (docs/events.md): ids, a heartbeat between events.
const TRANSCRIPT =
  'id: 1\nevent: message_start\ndata: {"messageId":"m1","chatId":"c1","runId":"r1","startedAt":"2026-01-01T00:00:00+00:00"}\n\n' +
  ': heartbeat\n\n' +
  'id: 2\nevent: message_chunk\ndata: {"chunk":"Hou"}\n\n' +
  'id: 3\nevent: message_chunk\ndata: {"chunk":"ston"}\n\n';

const EXPECTED: SseMessage[] = [
  {
    id: '1',
    event: 'message_start',
    data: '{"messageId":"m1","chatId":"c1","runId":"r1","startedAt":"2026-01-01T00:00:00+00:00"}',
  },
  { id: '2', event: 'message_chunk', data: '{"chunk":"Hou"}' },
  { id: '3', event: 'message_chunk', data: '{"chunk":"ston"}' },
];

function feedAll(parser: SseParser, chunks: string[]): SseMessage[] {
  const out: SseMessage[] = [];
  for (const chunk of chunks) out.push(...parser.feed(chunk));
  out.push(...parser.end());
  return out;
}

describe('SseParser', () => {
  it('parses a whole transcript in one chunk (several events per chunk, heartbeat ignored)', () => {
    const parser = new SseParser();
    expect(feedAll(parser, [TRANSCRIPT])).toEqual(EXPECTED);
    expect(parser.lastEventId).toBe('3');
  });

  it('gives the same events when the stream is split in two at every position', () => {
    for (let cut = 0; cut <= TRANSCRIPT.length; cut++) {
      const parser = new SseParser();
      const got = feedAll(parser, [TRANSCRIPT.slice(0, cut), TRANSCRIPT.slice(cut)]);
      expect(got, `split at ${cut}`).toEqual(EXPECTED);
    }
  });

  it('gives the same events when fed one character at a time', () => {
    expect(feedAll(new SseParser(), TRANSCRIPT.split(''))).toEqual(EXPECTED);
  });

  it('handles CRLF line ends, also when "\\r" and "\\n" arrive in different chunks', () => {
    const crlf = TRANSCRIPT.replace(/\n/g, '\r\n');
    for (let cut = 0; cut <= crlf.length; cut++) {
      const got = feedAll(new SseParser(), [crlf.slice(0, cut), crlf.slice(cut)]);
      expect(got, `split at ${cut}`).toEqual(EXPECTED);
    }
  });

  it('handles bare CR line ends', () => {
    const cr = TRANSCRIPT.replace(/\n/g, '\r');
    expect(feedAll(new SseParser(), [cr])).toEqual(EXPECTED);
    expect(feedAll(new SseParser(), cr.split(''))).toEqual(EXPECTED);
  });

  it('emits an event only once its blank line arrives', () => {
    const parser = new SseParser();
    expect(parser.feed('id: 7\nevent: tool_call\ndata: {"id":"call_1"}\n')).toEqual([]);
    expect(parser.feed('\n')).toEqual([{ id: '7', event: 'tool_call', data: '{"id":"call_1"}' }]);
  });

  it('joins multi-line data with newlines and strips only one leading space', () => {
    const parser = new SseParser();
    expect(parser.feed('data: first\ndata:second\ndata:  third\n\n')).toEqual([
      { event: 'message', data: 'first\nsecond\n third' },
    ]);
  });

  it('treats a field without a colon as a field with an empty value', () => {
    const parser = new SseParser();
    expect(parser.feed('data\ndata\n\n')).toEqual([{ event: 'message', data: '\n' }]);
    expect(parser.feed('event\ndata: x\n\n')).toEqual([{ event: 'message', data: 'x' }]);
  });

  it('ignores comments, unknown fields and events without data', () => {
    const parser = new SseParser();
    expect(parser.feed(': heartbeat\n\n:\n\nfoo: bar\n\nevent: ping\n\n')).toEqual([]);
    expect(parser.feed('data: ok\n\n')).toEqual([{ event: 'message', data: 'ok' }]);
  });

  it('keeps the last id across events without one, and reports only an event\'s own id', () => {
    const parser = new SseParser();
    const got = parser.feed('id: 4\ndata: a\n\ndata: b\n\nid: 5\n\n');
    expect(got).toEqual([
      { id: '4', event: 'message', data: 'a' },
      { event: 'message', data: 'b' },
    ]);
    // An id with no data dispatches nothing but still moves the last id.
    expect(parser.lastEventId).toBe('5');
  });

  it('reads retry when it is a number', () => {
    const parser = new SseParser();
    expect(parser.feed('retry: 1500\ndata: x\n\nretry: soon\ndata: y\n\n')).toEqual([
      { event: 'message', data: 'x', retry: 1500 },
      { event: 'message', data: 'y' },
    ]);
  });

  it('drops an event the stream ends in the middle of', () => {
    const parser = new SseParser();
    expect(parser.feed('id: 9\nevent: message_chunk\ndata: {"chunk":"par')).toEqual([]);
    expect(parser.end()).toEqual([]);
    expect(parser.feed('data: fresh\n\n')).toEqual([{ event: 'message', data: 'fresh' }]);
  });

  it('skips a byte order mark at the start', () => {
    expect(new SseParser().feed('\ufeffdata: x\n\n')).toEqual([{ event: 'message', data: 'x' }]);
  });
});

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

describe('readEventStream', () => {
  it('reads events from a response body whose bytes split a multi-byte character', async () => {
    const bytes = new TextEncoder().encode('id: 1\nevent: message_chunk\ndata: {"chunk":"Zürich €"}\n\n');
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const byte of bytes) controller.enqueue(new Uint8Array([byte]));
        controller.close();
      },
    });
    const got: SseMessage[] = [];
    await readEventStream(new Response(body), (m) => got.push(m));
    expect(got).toEqual([{ id: '1', event: 'message_chunk', data: '{"chunk":"Zürich €"}' }]);
  });

  it('rejects with an AbortError when aborted', async () => {
    const controller = new AbortController();
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode('data: one\n\n'));
      },
    });
    const got: SseMessage[] = [];
    const reading = readEventStream(
      new Response(body),
      (m) => {
        got.push(m);
        controller.abort();
      },
      controller.signal,
    );
    await expect(reading).rejects.toMatchObject({ name: 'AbortError' });
    expect(got).toHaveLength(1);
  });

  it('resolves when the server closes the stream', async () => {
    const got: SseMessage[] = [];
    await readEventStream(new Response(streamOf([TRANSCRIPT])), (m) => got.push(m));
    expect(got).toEqual(EXPECTED);
  });
});
