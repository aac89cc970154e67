// For tests: a fake network boundary. A `fetch` that records every Request and answers with
// real Response objects (JSON, or an event stream over a ReadableStream that may drop).

export interface FakeRequest {
  method: string;
  /** Path and query, e.g. `/api/data-agent/chats?page=1`. */
  url: string;
  path: string;
  headers: Headers;
  body: string;
}

export type Handler = (request: FakeRequest) => Response | Promise<Response>;

export interface FakeNetwork {
  fetch: (request: Request) => Promise<Response>;
  requests: FakeRequest[];
  /** Requests as `METHOD /path` for short assertions. */
  calls: () => string[];
}

/** A fetch answered by `handler`; an unhandled request gets a 599 so tests fail loudly. */
export function fakeNetwork(handler: Handler): FakeNetwork {
  const requests: FakeRequest[] = [];
  return {
    requests,
    calls: () => requests.map((r) => `${r.method} ${r.path}`),
    async fetch(request: Request) {
      const url = new URL(request.url);
      const fake: FakeRequest = {
        method: request.method,
        url: url.pathname + url.search,
        path: url.pathname,
        headers: request.headers,
        body: request.body ? await request.text() : '',
      };
      requests.push(fake);
      if (request.signal?.aborted) throw new DOMException('aborted', 'AbortError');
      return handler(fake);
    },
  };
}

export function jsonResponse(status: number, body?: unknown): Response {
  if (body === undefined) return new Response(null, { status });
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

export function errorResponse(status: number, code: string, message: string): Response {
  return jsonResponse(status, { error: { code, message, details: null } });
}

/** One SSE frame as the server writes it. */
export function frame(id: number, event: string, data: unknown): string {
  return `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

export interface StreamScript {
  /** Text chunks, each delivered by one read. */
  chunks: string[];
  /** After the chunks: close normally (default), fail like a dropped connection, or hang. */
  end?: 'close' | 'drop' | 'hang';
}

/** A 200 text/event-stream response whose body delivers `chunks` one read at a time. */
export function sseResponse({ chunks, end = 'close' }: StreamScript): Response {
  const encoder = new TextEncoder();
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next < chunks.length) {
        controller.enqueue(encoder.encode(chunks[next++]));
        return;
      }
      if (end === 'close') controller.close();
      else if (end === 'drop') controller.error(new TypeError('network error'));
      else return new Promise<void>(() => undefined);
    },
  });
  return new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream' } });
}

export interface LiveStream {
  response: Response;
  push: (text: string) => void;
  close: () => void;
  drop: () => void;
}

/** A 200 event stream the test writes to as it goes. */
export function liveSse(): LiveStream {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
  });
  return {
    response: new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream' } }),
    push: (text) => controller.enqueue(encoder.encode(text)),
    close: () => controller.close(),
    drop: () => controller.error(new TypeError('network error')),
  };
}
