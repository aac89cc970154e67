// Server-Sent Events over fetch: the parser of the WHATWG event-stream format, fed text as it
// arrives, and the loop that reads a response body into it. EventSource cannot POST, so the
// answer stream is read this way (seed 000, "Frontend SSE Consumption").

export interface SseMessage {
  /** The `id` field of this event, when it had one. */
  id?: string;
  /** The `event` field; `message` when absent. */
  event: string;
  /** The `data` lines joined with "\n". */
  data: string;
  /** The `retry` field (milliseconds), when it had a valid one. */
  retry?: number;
}

/**
 * Turns chunks of an event stream into events. Lines may end in "\n", "\r\n" or "\r", and a
 * chunk may end anywhere: inside a field, between "\r" and "\n", or between two events.
 */
export class SseParser {
  private buffer = '';
  /** The previous chunk ended in "\r": a "\n" starting the next one belongs to that line end. */
  private skipLeadingLf = false;
  private started = false;
  private data: string[] = [];
  private eventType = '';
  private eventId: string | undefined;
  private retry: number | undefined;
  private lastId = '';

  /** The last `id` seen on the stream (it carries over to later events, as in EventSource). */
  get lastEventId(): string {
    return this.lastId;
  }

  /** Parses a chunk of text; returns the events it completed. */
  feed(text: string): SseMessage[] {
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (this.skipLeadingLf && text.length > 0) {
      this.skipLeadingLf = false;
      if (text[0] === '\n') text = text.slice(1);
    }
    this.buffer += text;
    const out: SseMessage[] = [];
    let start = 0;
    for (let i = 0; i < this.buffer.length; i++) {
      const ch = this.buffer[i];
      if (ch !== '\n' && ch !== '\r') continue;
      const line = this.buffer.slice(start, i);
      if (ch === '\r') {
        if (i + 1 < this.buffer.length) {
          if (this.buffer[i + 1] === '\n') i++;
        } else {
          this.skipLeadingLf = true;
        }
      }
      start = i + 1;
      const message = this.line(line);
      if (message) out.push(message);
    }
    this.buffer = this.buffer.slice(start);
    return out;
  }

  /**
   * The stream ended. An event not closed by a blank line is dropped, as the format says (a
   * dropped connection must not deliver half an event); returns the events that completes,
   * which is always none, so callers can treat both methods alike.
   */
  end(): SseMessage[] {
    this.buffer = '';
    this.skipLeadingLf = false;
    this.resetEvent();
    return [];
  }

  private line(line: string): SseMessage | null {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return null; // a comment: ": heartbeat"
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'data':
        this.data.push(value);
        break;
      case 'event':
        this.eventType = value;
        break;
      case 'id':
        if (!value.includes('\u0000')) {
          this.eventId = value;
          this.lastId = value;
        }
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retry = Number(value);
        break;
      default:
        break; // unknown fields are ignored
    }
    return null;
  }

  private dispatch(): SseMessage | null {
    if (this.data.length === 0) {
      // No data: nothing to deliver (an id alone still moved lastEventId).
      this.resetEvent();
      return null;
    }
    const message: SseMessage = { event: this.eventType || 'message', data: this.data.join('\n') };
    if (this.eventId !== undefined) message.id = this.eventId;
    if (this.retry !== undefined) message.retry = this.retry;
    this.resetEvent();
    return message;
  }

  private resetEvent(): void {
    this.data = [];
    this.eventType = '';
    this.eventId = undefined;
    this.retry = undefined;
  }
}

/**
 * Reads an event-stream response to its end, calling `onMessage` for every event. Resolves
 * when the server closes the stream; rejects when the connection breaks or `signal` aborts.
 */
export async function readEventStream(
  response: Response,
  onMessage: (message: SseMessage) => void,
  signal?: AbortSignal,
): Promise<void> {
  if (!response.body) throw new Error('The response has no body to read events from.');
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  const onAbort = () => {
    reader.cancel().catch(() => undefined);
  };
  if (signal?.aborted) {
    onAbort();
    throw abortError();
  }
  signal?.addEventListener('abort', onAbort);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (signal?.aborted) throw abortError();
      if (done) break;
      for (const message of parser.feed(decoder.decode(value, { stream: true }))) {
        onMessage(message);
        if (signal?.aborted) throw abortError();
      }
    }
    for (const message of parser.feed(decoder.decode())) onMessage(message);
    parser.end();
  } finally {
    signal?.removeEventListener('abort', onAbort);
    reader.releaseLock();
  }
}

function abortError(): DOMException {
  return new DOMException('The stream was aborted.', 'AbortError');
}
