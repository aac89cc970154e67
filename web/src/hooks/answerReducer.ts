// An answer's events (docs/events.md) folded into the message the page draws, and the API's
// stored message turned into that same view. Pure: no React, no network.

import type { Schemas } from '../api/client';
import type { ChartView, ChatMessageView, TokenCounts, ToolCallView } from '../types';

type Json = Record<string, unknown>;

/** Returns the message after one event of its answer; unknown events leave it unchanged. */
export function applyAnswerEvent(msg: ChatMessageView, event: string, data: unknown): ChatMessageView {
  const d: Json = isObject(data) ? data : {};
  switch (event) {
    case 'message_start':
      // The first event of a run: whatever was drawn before belongs to no run (a replay
      // from the start rebuilds everything).
      return {
        ...msg,
        status: 'generating',
        content: '',
        reasoning: [],
        toolCalls: [],
        charts: [],
        error: undefined,
      };
    case 'message_chunk':
      return { ...msg, content: msg.content + str(d.chunk) };
    case 'clear_streaming':
      return { ...msg, content: '' };
    case 'text': {
      const text = str(d.content);
      return text.trim() ? { ...msg, reasoning: [...msg.reasoning, text] } : msg;
    }
    case 'tool_call': {
      const call: ToolCallView = { id: str(d.id), name: str(d.name), args: isObject(d.args) ? d.args : {} };
      const at = msg.toolCalls.findIndex((c) => c.id === call.id);
      const toolCalls =
        at === -1 ? [...msg.toolCalls, call] : msg.toolCalls.map((c, i) => (i === at ? { ...c, ...call } : c));
      return { ...msg, toolCalls };
    }
    case 'tool_result': {
      const id = str(d.id);
      const filled: Partial<ToolCallView> = {
        result: str(d.result),
        isError: d.isError === true,
        durationMs: num(d.durationMs),
      };
      const at = msg.toolCalls.findIndex((c) => c.id === id);
      const toolCalls =
        at === -1
          ? [...msg.toolCalls, { id, name: str(d.name), args: {}, ...filled }]
          : msg.toolCalls.map((c, i) => (i === at ? { ...c, ...filled } : c));
      return { ...msg, toolCalls };
    }
    case 'chart': {
      const chart = toChart(d);
      if (!chart || msg.charts.some((c) => c.id === chart.id)) return msg;
      return { ...msg, charts: [...msg.charts, chart] };
    }
    case 'token_update': {
      const total = toTokens(d.totalTokensUsed);
      return total ? { ...msg, tokensUsed: total } : msg;
    }
    case 'message_complete': {
      const meta = isObject(d.metadata) ? d.metadata : {};
      const toolCalls = toToolCalls(meta.toolCalls);
      const charts = toCharts(meta.charts);
      return {
        ...msg,
        status: 'complete',
        content: typeof d.content === 'string' ? d.content : msg.content,
        toolCalls: toolCalls ?? msg.toolCalls,
        charts: charts ? mergeCharts(msg.charts, charts) : msg.charts,
        tokensUsed: toTokens(meta.tokensUsed) ?? msg.tokensUsed,
        durationMs: num(meta.durationMs) ?? msg.durationMs,
        error: undefined,
      };
    }
    case 'message_error':
      return {
        ...msg,
        status: 'failed',
        content: str(d.partialContent) || msg.content,
        error: { code: str(d.code) || 'INTERNAL_ERROR', message: str(d.message) || 'The answer failed.' },
      };
    default:
      return msg;
  }
}

/** The page's view of a stored message (its metadata read defensively: it is free JSON). */
export function toMessageView(m: Schemas['MessagePublic']): ChatMessageView {
  const meta: Json = isObject(m.metadata) ? m.metadata : {};
  const error = isObject(meta.error)
    ? { code: str(meta.error.code) || 'INTERNAL_ERROR', message: str(meta.error.message) || 'The answer failed.' }
    : undefined;
  return {
    id: m.id,
    chatId: m.chatId,
    role: m.role,
    content: m.content,
    status: m.status,
    createdAt: m.createdAt,
    reasoning: [],
    toolCalls: toToolCalls(meta.toolCalls) ?? [],
    charts: toCharts(meta.charts) ?? [],
    error,
    tokensUsed: toTokens(meta.tokensUsed),
    durationMs: num(meta.durationMs),
  };
}

function toToolCalls(value: unknown): ToolCallView[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.filter(isObject).map((c) => ({
    id: str(c.id),
    name: str(c.name),
    args: isObject(c.args) ? c.args : {},
    result: typeof c.result === 'string' ? c.result : undefined,
    isError: c.isError === true,
    durationMs: num(c.durationMs),
  }));
}

function toCharts(value: unknown): ChartView[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.filter(isObject).map(toChart).filter((c): c is ChartView => c !== null);
}

function mergeCharts(seen: ChartView[], stored: ChartView[]): ChartView[] {
  const out = [...stored];
  for (const chart of seen) if (!out.some((c) => c.id === chart.id)) out.push(chart);
  return out;
}

function toChart(d: Json): ChartView | null {
  const id = str(d.id);
  const url = str(d.url);
  if (!id || !url) return null;
  return { id, url, title: str(d.title) };
}

function toTokens(value: unknown): TokenCounts | undefined {
  if (!isObject(value)) return undefined;
  return { prompt: num(value.prompt) ?? 0, completion: num(value.completion) ?? 0, total: num(value.total) ?? 0 };
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
