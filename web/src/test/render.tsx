import type { ReactElement } from 'react';
import { render, type RenderOptions } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ThemeProvider, createTheme } from '@mui/material/styles';
import type { ChatMessageView, ChatSummary } from '../types';

/** Render inside a MUI theme (light by default) and give a user-event instance. */
export function renderWithTheme(
  ui: ReactElement,
  { mode = 'light', ...options }: { mode?: 'light' | 'dark' } & Omit<RenderOptions, 'wrapper'> = {},
) {
  const theme = createTheme({ palette: { mode } });
  const user = userEvent.setup();
  const result = render(ui, {
    wrapper: ({ children }) => <ThemeProvider theme={theme}>{children}</ThemeProvider>,
    ...options,
  });
  return { user, theme, ...result };
}

let nextId = 1;

export function makeChat(overrides: Partial<ChatSummary> = {}): ChatSummary {
  const id = overrides.id ?? `chat-${nextId++}`;
  return {
    id,
    name: `Chat ${id}`,
    ontologyId: 'onto-1',
    llmProvider: null,
    agentMode: 'pipeline',
    createdAt: '2026-03-10T09:00:00.000Z',
    updatedAt: '2026-03-10T09:00:00.000Z',
    messageCount: 2,
    ontologyAccess: 'owner',
    ...overrides,
  };
}

export function makeMessage(overrides: Partial<ChatMessageView> = {}): ChatMessageView {
  return {
    id: overrides.id ?? `msg-${nextId++}`,
    chatId: 'chat-1',
    role: 'assistant',
    content: '',
    status: 'complete',
    createdAt: '2026-03-10T09:00:00.000Z',
    reasoning: [],
    toolCalls: [],
    charts: [],
    ...overrides,
  };
}
