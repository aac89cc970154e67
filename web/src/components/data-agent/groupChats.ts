import type { ChatSummary } from '../../types';

export type ChatGroupKey = 'today' | 'yesterday' | 'last7Days' | 'last30Days' | 'older';

export interface ChatGroup<T extends Pick<ChatSummary, 'updatedAt'> = ChatSummary> {
  key: ChatGroupKey;
  label: string;
  chats: T[];
}

export const CHAT_GROUP_LABELS: Record<ChatGroupKey, string> = {
  today: 'Today',
  yesterday: 'Yesterday',
  last7Days: 'Last 7 Days',
  last30Days: 'Last 30 Days',
  older: 'Older',
};

const ORDER: ChatGroupKey[] = ['today', 'yesterday', 'last7Days', 'last30Days', 'older'];

/** Local midnight `days` days before `date`'s day (DST-safe: calendar days, not 24 h). */
function startOfDayMinus(date: Date, days: number): number {
  return new Date(date.getFullYear(), date.getMonth(), date.getDate() - days).getTime();
}

/**
 * Which group a time falls in, in the browser's time zone (seed 000's boundaries):
 * Today from local midnight on (and any future time, a clock skew); Yesterday from the
 * midnight before; Last 7 Days from midnight 7 days ago; Last 30 Days from midnight 30
 * days ago; anything earlier, or unreadable, is Older. A boundary instant belongs to the
 * newer group.
 */
export function chatGroupOf(updatedAt: string | Date, now: Date = new Date()): ChatGroupKey {
  const time = (updatedAt instanceof Date ? updatedAt : new Date(updatedAt)).getTime();
  if (Number.isNaN(time)) return 'older';
  if (time >= startOfDayMinus(now, 0)) return 'today';
  if (time >= startOfDayMinus(now, 1)) return 'yesterday';
  if (time >= startOfDayMinus(now, 7)) return 'last7Days';
  if (time >= startOfDayMinus(now, 30)) return 'last30Days';
  return 'older';
}

function timeOf(value: string): number {
  const time = new Date(value).getTime();
  return Number.isNaN(time) ? -Infinity : time;
}

/**
 * The chats in date groups, newest first within each; only the groups that have chats,
 * in the order Today, Yesterday, Last 7 Days, Last 30 Days, Older.
 */
export function groupChatsByDate<T extends Pick<ChatSummary, 'updatedAt'>>(
  chats: readonly T[],
  now: Date = new Date(),
): ChatGroup<T>[] {
  const buckets = new Map<ChatGroupKey, T[]>(ORDER.map((key) => [key, []]));
  const sorted = [...chats].sort((a, b) => timeOf(b.updatedAt) - timeOf(a.updatedAt));
  for (const chat of sorted) {
    buckets.get(chatGroupOf(chat.updatedAt, now))!.push(chat);
  }
  return ORDER.filter((key) => buckets.get(key)!.length > 0).map((key) => ({
    key,
    label: CHAT_GROUP_LABELS[key],
    chats: buckets.get(key)!,
  }));
}

/** A chat name for the list: at most `max` characters, then "…". */
export function truncateName(name: string, max = 30): string {
  const chars = Array.from(name);
  if (chars.length <= max) return name;
  return chars.slice(0, max).join('').trimEnd() + '…';
}
