import { fireEvent, render, screen } from '@testing-library/react';
import type { ChatMessageView } from '../types';
import { disabledReasonFor } from './ChatView';
import MessageList from './MessageList';

function msg(id: string, content: string, role: 'user' | 'assistant' = 'assistant'): ChatMessageView {
  return { id, chatId: 'c1', role, content, status: 'complete', createdAt: 'x', reasoning: [], toolCalls: [], charts: [] };
}

describe('MessageList', () => {
  it('is a log named Messages that follows new content unless scrolled up', () => {
    let height = 1000;
    const { rerender } = render(<MessageList messages={[msg('m1', 'Q', 'user'), msg('m2', 'A')]} />);
    const log = screen.getByRole('log', { name: 'Messages' });
    Object.defineProperty(log, 'scrollHeight', { configurable: true, get: () => height });
    Object.defineProperty(log, 'clientHeight', { configurable: true, get: () => 400 });

    height = 1200;
    rerender(<MessageList messages={[msg('m1', 'Q', 'user'), msg('m2', 'A longer answer')]} />);
    expect(log.scrollTop).toBe(1200);

    // The person scrolls up to read: new text does not pull them down.
    log.scrollTop = 100;
    fireEvent.scroll(log);
    height = 1400;
    rerender(<MessageList messages={[msg('m1', 'Q', 'user'), msg('m2', 'A longer answer still')]} />);
    expect(log.scrollTop).toBe(100);

    // Back at the end, it follows again.
    log.scrollTop = 1000;
    fireEvent.scroll(log);
    height = 1500;
    rerender(<MessageList messages={[msg('m1', 'Q', 'user'), msg('m2', 'A longer answer still growing')]} />);
    expect(log.scrollTop).toBe(1500);

    // A new question always goes to the end.
    log.scrollTop = 0;
    fireEvent.scroll(log);
    height = 1700;
    rerender(
      <MessageList
        messages={[msg('m1', 'Q', 'user'), msg('m2', 'A longer answer still growing'), msg('m3', 'Q2', 'user'), msg('m4', '')]}
      />,
    );
    expect(log.scrollTop).toBe(1700);
  });
});

describe('MessageList asking again', () => {
  const failed: ChatMessageView = { ...msg('m4', ''), status: 'failed', error: { code: 'AGENT_ERROR', message: 'x' } };

  it('offers it on the last answer only, and not while an answer is asked or written', () => {
    const onAskAgain = vi.fn();
    const messages = [msg('m1', 'Q', 'user'), msg('m2', 'A'), msg('m3', 'Q2', 'user'), failed];
    const { rerender } = render(<MessageList messages={messages} onAskAgain={onAskAgain} />);
    expect(screen.getAllByRole('button', { name: 'Retry' })).toHaveLength(1);
    expect(screen.queryByRole('button', { name: 'Regenerate' })).toBeNull(); // m2 is not the last
    fireEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(onAskAgain).toHaveBeenCalledWith('m4');

    rerender(<MessageList messages={messages} onAskAgain={onAskAgain} streaming />);
    expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull();

    rerender(<MessageList messages={[...messages, msg('m5', 'Q3', 'user')]} onAskAgain={onAskAgain} />);
    expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull(); // the last is a question

    rerender(<MessageList messages={[msg('m1', 'Q', 'user'), msg('m2', 'A')]} />);
    expect(screen.queryByRole('button', { name: 'Regenerate' })).toBeNull(); // a viewer
  });
});

describe('disabledReasonFor', () => {
  it('explains why a viewer cannot ask', () => {
    expect(disabledReasonFor(false, 'viewer')).toBe('Your role (viewer) can read chats but not ask questions.');
    expect(disabledReasonFor(true, 'contributor')).toBeNull();
  });
});
