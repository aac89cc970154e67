import type { ChatMessageView } from '../types';
import { applyAnswerEvent, toMessageView } from './answerReducer';

const placeholder: ChatMessageView = {
  id: 'm2',
  chatId: 'c1',
  role: 'assistant',
  content: '',
  status: 'generating',
  createdAt: '2026-01-01T00:00:00Z',
  reasoning: [],
  toolCalls: [],
  charts: [],
};

const SQL = 'SELECT city, COUNT(*) AS n FROM customers GROUP BY city';
const TABLE = '| city | n |\n|---|---|\n| Houston | 12 |';
const CHART = { id: 'ch1', url: '/api/charts/ch1.png', title: 'Customers by city', chartType: 'image', spec: null };

// An answer as docs/events.md orders it: a turn that calls a tool, then a turn that answers.
const EVENTS: [string, unknown][] = [
  ['message_start', { messageId: 'm2', chatId: 'c1', runId: 'r1', startedAt: '2026-01-01T00:00:00+00:00' }],
  ['llm_call_start', { phase: 'agent', callIndex: 0, purpose: 'answer', provider: 'openai', model: 'gpt-4o-mini', structuredOutput: false, promptSummary: { messageCount: 2, totalChars: 900 } }],
  ['message_chunk', { chunk: 'Let me count ' }],
  ['message_chunk', { chunk: 'customers per city.' }],
  ['llm_call_end', { phase: 'agent', callIndex: 0, purpose: 'answer', durationMs: 800, promptTokens: 20, completionTokens: 9, totalTokens: 29, responsePreview: 'Let me count', toolCallCount: 1 }],
  ['token_update', { phase: 'agent', tokensUsed: { prompt: 20, completion: 9, total: 29 }, totalTokensUsed: { prompt: 20, completion: 9, total: 29 } }],
  ['text', { content: 'Let me count customers per city.' }],
  ['clear_streaming', {}],
  ['tool_call', { id: 'call_1', name: 'query_database', args: { sql: SQL } }],
  ['tool_call', { id: 'call_2', name: 'run_python', args: { code: 'plot()' } }],
  ['tool_result', { id: 'call_2', name: 'run_python', result: 'Error (RUNNER_TIMEOUT): too slow', isError: true, durationMs: 3000 }],
  ['tool_result', { id: 'call_1', name: 'query_database', result: TABLE, isError: false, durationMs: 15 }],
  ['chart', CHART],
  ['chart', CHART],
  ['llm_call_start', { phase: 'agent', callIndex: 1, purpose: 'answer', provider: 'openai', model: 'gpt-4o-mini', structuredOutput: false, promptSummary: { messageCount: 5, totalChars: 1500 } }],
  ['message_chunk', { chunk: 'Houston has ' }],
  ['message_chunk', { chunk: '12 customers.' }],
  ['token_update', { phase: 'agent', tokensUsed: { prompt: 30, completion: 5, total: 35 }, totalTokensUsed: { prompt: 50, completion: 14, total: 64 } }],
];

function fold(events: [string, unknown][], start = placeholder): ChatMessageView {
  return events.reduce((msg, [event, data]) => applyAnswerEvent(msg, event, data), start);
}

describe('applyAnswerEvent', () => {
  it('builds the answer as it streams', () => {
    const msg = fold(EVENTS);
    expect(msg.status).toBe('generating');
    expect(msg.content).toBe('Houston has 12 customers.');
    expect(msg.reasoning).toEqual(['Let me count customers per city.']);
    expect(msg.toolCalls).toEqual([
      { id: 'call_1', name: 'query_database', args: { sql: SQL }, result: TABLE, isError: false, durationMs: 15 },
      { id: 'call_2', name: 'run_python', args: { code: 'plot()' }, result: 'Error (RUNNER_TIMEOUT): too slow', isError: true, durationMs: 3000 },
    ]);
    expect(msg.charts).toEqual([{ id: 'ch1', url: '/api/charts/ch1.png', title: 'Customers by city' }]);
    expect(msg.tokensUsed).toEqual({ prompt: 50, completion: 14, total: 64 });
  });

  it('shows the text before clear_streaming while it streams, then starts afresh', () => {
    const before = fold(EVENTS.slice(0, 4));
    expect(before.content).toBe('Let me count customers per city.');
    expect(fold(EVENTS.slice(0, 8)).content).toBe('');
  });

  it('a running tool call has no result yet', () => {
    const msg = fold(EVENTS.slice(0, 9));
    expect(msg.toolCalls).toEqual([{ id: 'call_1', name: 'query_database', args: { sql: SQL } }]);
  });

  it('message_complete stores the final content and metadata', () => {
    const msg = fold([
      ...EVENTS,
      [
        'message_complete',
        {
          messageId: 'm2',
          content: 'Houston has **12** customers.',
          metadata: {
            toolCalls: [{ id: 'call_1', name: 'query_database', args: { sql: SQL }, result: TABLE, isError: false, durationMs: 15 }],
            tokensUsed: { prompt: 50, completion: 14, total: 64 },
            datasetsUsed: ['customers'],
            charts: [{ id: 'ch1', url: '/api/charts/ch1.png', title: 'Customers by city' }],
            startedAt: '2026-01-01T00:00:00+00:00',
            durationMs: 4200,
            agentMode: 'react',
          },
        },
      ],
    ]);
    expect(msg.status).toBe('complete');
    expect(msg.content).toBe('Houston has **12** customers.');
    expect(msg.toolCalls.map((c) => c.id)).toEqual(['call_1']);
    expect(msg.charts).toHaveLength(1);
    expect(msg.durationMs).toBe(4200);
    expect(msg.reasoning).toEqual(['Let me count customers per city.']);
  });

  it('message_error keeps the partial answer and the error', () => {
    const msg = fold([
      ...EVENTS,
      ['message_error', { messageId: 'm2', message: 'The answer was cancelled.', code: 'CANCELLED', partialContent: 'Houston has 12 customers.' }],
    ]);
    expect(msg.status).toBe('failed');
    expect(msg.content).toBe('Houston has 12 customers.');
    expect(msg.error).toEqual({ code: 'CANCELLED', message: 'The answer was cancelled.' });
  });

  it('message_error without partial content keeps what was drawn', () => {
    const msg = fold([
      ['message_chunk', { chunk: 'Half' }],
      ['message_error', { messageId: 'm2', message: 'The model failed.', code: 'LLM_ERROR', partialContent: '' }],
    ]);
    expect(msg.content).toBe('Half');
  });

  it('a replay from the start rebuilds rather than doubles', () => {
    const once = fold(EVENTS);
    expect(fold(EVENTS, once)).toEqual(once);
  });

  it('ignores unknown events and bad payloads', () => {
    expect(applyAnswerEvent(placeholder, 'something_new', { x: 1 })).toBe(placeholder);
    expect(applyAnswerEvent(placeholder, 'message_chunk', null).content).toBe('');
    expect(applyAnswerEvent(placeholder, 'chart', { title: 'no id' })).toBe(placeholder);
  });
});

describe('toMessageView', () => {
  it('maps a stored answer with its metadata', () => {
    const view = toMessageView({
      id: 'm2',
      chatId: 'c1',
      role: 'assistant',
      content: 'Partial',
      status: 'failed',
      createdAt: '2026-01-01T00:00:00Z',
      metadata: {
        toolCalls: [{ id: 'call_1', name: 'query_database', args: { sql: SQL }, result: TABLE, isError: false, durationMs: 15 }],
        charts: [{ id: 'ch1', url: '/api/charts/ch1.png', title: 'Customers by city' }],
        error: { code: 'INTERRUPTED', message: 'The server stopped while this answer was being generated.', timestamp: 'x' },
        tokensUsed: { prompt: 1, completion: 2, total: 3 },
        durationMs: 99,
      },
    });
    expect(view.toolCalls[0]).toMatchObject({ id: 'call_1', result: TABLE });
    expect(view.charts).toEqual([{ id: 'ch1', url: '/api/charts/ch1.png', title: 'Customers by city' }]);
    expect(view.error).toEqual({ code: 'INTERRUPTED', message: 'The server stopped while this answer was being generated.' });
    expect(view.tokensUsed).toEqual({ prompt: 1, completion: 2, total: 3 });
    expect(view.durationMs).toBe(99);
    expect(view.reasoning).toEqual([]);
  });

  it('maps a question with null metadata', () => {
    const view = toMessageView({
      id: 'm1',
      chatId: 'c1',
      role: 'user',
      content: 'How many customers per city?',
      status: 'complete',
      createdAt: '2026-01-01T00:00:00Z',
      metadata: null,
    });
    expect(view).toMatchObject({ role: 'user', toolCalls: [], charts: [], error: undefined });
  });
});
