import { describe, expect, it } from 'vitest';
import { chatGroupOf, groupChatsByDate, truncateName } from './groupChats';

// Local times: the groups follow the browser's calendar.
const now = new Date(2026, 2, 15, 14, 30); // 15 March 2026, 14:30 local
const at = (...args: [number, number, number, number?, number?, number?, number?]) => {
  const [y, m, d, h = 0, min = 0, s = 0, ms = 0] = args;
  return new Date(y, m, d, h, min, s, ms).toISOString();
};

describe('chatGroupOf', () => {
  it('puts the start of today in Today and the instant before in Yesterday', () => {
    expect(chatGroupOf(at(2026, 2, 15, 0, 0, 0, 0), now)).toBe('today');
    expect(chatGroupOf(at(2026, 2, 14, 23, 59, 59, 999), now)).toBe('yesterday');
    expect(chatGroupOf(now, now)).toBe('today');
  });

  it('puts the start of yesterday in Yesterday and the instant before in Last 7 Days', () => {
    expect(chatGroupOf(at(2026, 2, 14), now)).toBe('yesterday');
    expect(chatGroupOf(at(2026, 2, 13, 23, 59, 59, 999), now)).toBe('last7Days');
  });

  it('ends Last 7 Days at midnight 7 days ago', () => {
    expect(chatGroupOf(at(2026, 2, 8), now)).toBe('last7Days');
    expect(chatGroupOf(at(2026, 2, 7, 23, 59, 59, 999), now)).toBe('last30Days');
  });

  it('ends Last 30 Days at midnight 30 days ago', () => {
    expect(chatGroupOf(at(2026, 1, 13), now)).toBe('last30Days'); // 15 Mar - 30 days = 13 Feb
    expect(chatGroupOf(at(2026, 1, 12, 23, 59, 59, 999), now)).toBe('older');
    expect(chatGroupOf(at(2020, 0, 1), now)).toBe('older');
  });

  it('counts future times as today and unreadable ones as older', () => {
    expect(chatGroupOf(at(2026, 2, 16, 9), now)).toBe('today');
    expect(chatGroupOf('not a date', now)).toBe('older');
  });

  it('counts calendar days across a month start', () => {
    const early = new Date(2026, 2, 1, 8); // 1 March
    expect(chatGroupOf(at(2026, 1, 28, 23), early)).toBe('yesterday');
    expect(chatGroupOf(at(2026, 1, 22), early)).toBe('last7Days');
  });
});

describe('groupChatsByDate', () => {
  const chat = (id: string, updatedAt: string) => ({ id, updatedAt });

  it('returns only non-empty groups, in order, newest first inside', () => {
    const groups = groupChatsByDate(
      [
        chat('old', at(2025, 0, 1)),
        chat('today-early', at(2026, 2, 15, 8)),
        chat('week', at(2026, 2, 10)),
        chat('today-late', at(2026, 2, 15, 12)),
      ],
      now,
    );
    expect(groups.map((g) => g.label)).toEqual(['Today', 'Last 7 Days', 'Older']);
    expect(groups[0].chats.map((c) => c.id)).toEqual(['today-late', 'today-early']);
  });

  it('is empty for no chats', () => {
    expect(groupChatsByDate([], now)).toEqual([]);
  });
});

describe('truncateName', () => {
  it('keeps names up to 30 characters and cuts longer ones with an ellipsis', () => {
    expect(truncateName('Short')).toBe('Short');
    expect(truncateName('x'.repeat(30))).toBe('x'.repeat(30));
    expect(truncateName('x'.repeat(31))).toBe(`${'x'.repeat(30)}…`);
    expect(truncateName('Revenue by region and month for 2025')).toBe('Revenue by region and month fo…');
  });

  it('does not split characters outside the BMP', () => {
    expect(truncateName('📊'.repeat(31))).toBe(`${'📊'.repeat(30)}…`);
  });
});
