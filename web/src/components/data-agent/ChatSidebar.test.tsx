import { describe, expect, it, vi } from 'vitest';
import { act, screen, waitFor, within } from '@testing-library/react';
import { makeChat, renderWithTheme } from '../../test/render';
import { SHARED_MARKER, WITHDRAWN_MARKER } from './accessLabels';
import ChatSidebar, { type ChatSidebarProps } from './ChatSidebar';

const now = new Date(2026, 2, 15, 14, 30);
const iso = (y: number, m: number, d: number, h = 12) => new Date(y, m, d, h).toISOString();

const chats = [
  makeChat({ id: 'a', name: 'Top customers', updatedAt: iso(2026, 2, 15, 10) }),
  makeChat({ id: 'b', name: 'Revenue by month', updatedAt: iso(2026, 2, 14) }),
  makeChat({ id: 'c', name: 'Churn analysis', updatedAt: iso(2026, 2, 11) }),
  makeChat({ id: 'd', name: 'Inventory levels', updatedAt: iso(2026, 1, 20) }),
  makeChat({ id: 'e', name: 'A very long chat name that goes on and on', updatedAt: iso(2025, 5, 1) }),
];

function setup(overrides: Partial<ChatSidebarProps> = {}) {
  const props: ChatSidebarProps = {
    chats,
    currentChatId: 'b',
    search: '',
    onSearchChange: vi.fn(),
    onNewChat: vi.fn(),
    onSelectChat: vi.fn(),
    onRenameChat: vi.fn(),
    onDeleteChat: vi.fn(),
    canWrite: true,
    canDelete: true,
    now,
    ...overrides,
  };
  return { props, ...renderWithTheme(<ChatSidebar {...props} />) };
}

describe('ChatSidebar', () => {
  it('is a navigation landmark with a New chat button', async () => {
    const { props, user } = setup();
    expect(screen.getByRole('navigation', { name: 'Chats' })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'New chat' }));
    expect(props.onNewChat).toHaveBeenCalledTimes(1);
  });

  it('has a search box that reports what is typed', async () => {
    const { props, user } = setup();
    const box = screen.getByRole('textbox', { name: 'Search chats' });
    await user.type(box, 'r');
    expect(props.onSearchChange).toHaveBeenCalledWith('r');
  });

  it('clears the search', async () => {
    const { props, user } = setup({ search: 'rev' });
    await user.click(screen.getByRole('button', { name: 'Clear search' }));
    expect(props.onSearchChange).toHaveBeenCalledWith('');
  });

  it('groups the chats by date under headings', () => {
    setup();
    const headings = screen.getAllByRole('heading').map((h) => h.textContent);
    expect(headings).toEqual(['Today', 'Yesterday', 'Last 7 Days', 'Last 30 Days', 'Older']);
    const today = screen.getByRole('region', { name: 'Today' });
    expect(within(today).getByRole('button', { name: /^Top customers/ })).toBeInTheDocument();
    const week = screen.getByRole('region', { name: 'Last 7 Days' });
    expect(within(week).getByRole('button', { name: /^Churn analysis/ })).toBeInTheDocument();
    const older = screen.getByRole('region', { name: 'Older' });
    expect(within(older).getByRole('button', { name: /^A very long chat name/ })).toBeInTheDocument();
  });

  it('shows only the groups that have chats', () => {
    setup({ chats: [chats[0], chats[4]] });
    expect(screen.getAllByRole('heading').map((h) => h.textContent)).toEqual(['Today', 'Older']);
  });

  it('truncates long names to 30 characters and keeps the full name in the title', () => {
    setup();
    const item = screen.getByRole('button', { name: /^A very long chat name/ });
    expect(item).toHaveTextContent('A very long chat name that goe…');
    expect(item).toHaveAttribute('title', 'A very long chat name that goes on and on');
  });

  it('marks the active chat with aria-current', () => {
    setup();
    expect(screen.getByRole('button', { name: /^Revenue by month/ })).toHaveAttribute('aria-current', 'page');
    expect(screen.getByRole('button', { name: /^Top customers/ })).not.toHaveAttribute('aria-current');
    expect(screen.getByRole('button', { name: /^Revenue by month/ })).toHaveClass('Mui-selected');
  });

  it('calls onSelectChat on click and on Enter', async () => {
    const { props, user } = setup();
    await user.click(screen.getByRole('button', { name: /^Churn analysis/ }));
    expect(props.onSelectChat).toHaveBeenCalledWith('c');
    screen.getByRole('button', { name: /^Inventory levels/ }).focus();
    await user.keyboard('{Enter}');
    expect(props.onSelectChat).toHaveBeenCalledWith('d');
  });

  it('has rename and delete actions for every chat, shown on hover', async () => {
    const { user } = setup();
    const rename = screen.getByRole('button', { name: 'Rename chat Top customers' });
    expect(screen.getByRole('button', { name: 'Delete chat Top customers' })).toBeInTheDocument();
    // Rendered for keyboard users but transparent until the row is hovered or focused
    // (jsdom cannot hover; it does know :focus-within).
    expect(rename).not.toBeVisible();
    await user.tab();
    await user.tab();
    await user.tab(); // New chat, search, first chat
    expect(screen.getByRole('button', { name: /^Top customers/ })).toHaveFocus();
    expect(rename).toBeVisible();
    expect(screen.getAllByRole('button', { name: /^Rename chat / })).toHaveLength(chats.length);
    expect(screen.getAllByRole('button', { name: /^Delete chat / })).toHaveLength(chats.length);
  });

  it('renames in a dialog: Save sends the new name', async () => {
    const { props, user } = setup();
    await user.click(screen.getByRole('button', { name: 'Rename chat Churn analysis' }));
    const dialog = screen.getByRole('dialog', { name: 'Rename chat' });
    const field = within(dialog).getByRole('textbox', { name: 'Name' });
    expect(field).toHaveValue('Churn analysis');
    await user.clear(field);
    await user.type(field, 'Churn by cohort');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(props.onRenameChat).toHaveBeenCalledWith('c', 'Churn by cohort');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  });

  it('renames with Enter and cancels with Escape', async () => {
    const { props, user } = setup();
    await user.click(screen.getByRole('button', { name: 'Rename chat Top customers' }));
    let field = screen.getByRole('textbox', { name: 'Name' });
    await user.clear(field);
    await user.type(field, 'Best customers{Enter}');
    expect(props.onRenameChat).toHaveBeenCalledWith('a', 'Best customers');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());

    await user.click(screen.getByRole('button', { name: 'Rename chat Top customers' }));
    field = screen.getByRole('textbox', { name: 'Name' });
    await user.type(field, ' again');
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(props.onRenameChat).toHaveBeenCalledTimes(1);
  });

  it('keeps the rename dialog open with the error when renaming fails', async () => {
    const { user } = setup({ onRenameChat: vi.fn().mockRejectedValue(new Error('Name taken')) });
    await user.click(screen.getByRole('button', { name: 'Rename chat Top customers' }));
    const field = screen.getByRole('textbox', { name: 'Name' });
    await user.type(field, ' 2{Enter}');
    expect(await screen.findByText('Name taken')).toBeInTheDocument();
    expect(screen.getByRole('dialog', { name: 'Rename chat' })).toBeInTheDocument();
  });

  it('asks before deleting and deletes only on confirm', async () => {
    const { props, user } = setup();
    await user.click(screen.getByRole('button', { name: 'Delete chat Churn analysis' }));
    const dialog = screen.getByRole('dialog', { name: 'Delete chat?' });
    expect(dialog).toHaveTextContent('Churn analysis');
    expect(props.onDeleteChat).not.toHaveBeenCalled();
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect(props.onDeleteChat).toHaveBeenCalledWith('c');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  });

  it('does not delete on Cancel or Escape', async () => {
    const { props, user } = setup();
    await user.click(screen.getByRole('button', { name: 'Delete chat Churn analysis' }));
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    await user.click(screen.getByRole('button', { name: 'Delete chat Churn analysis' }));
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(props.onDeleteChat).not.toHaveBeenCalled();
  });

  it('shows an empty state, different while searching', () => {
    const { rerender } = setup({ chats: [] });
    expect(screen.getByText('No chats yet')).toBeInTheDocument();
    rerender(
      <ChatSidebar
        chats={[]}
        currentChatId={null}
        search="zzz"
        onSearchChange={vi.fn()}
        onNewChat={vi.fn()}
        onSelectChat={vi.fn()}
        onRenameChat={vi.fn()}
        onDeleteChat={vi.fn()}
        canWrite
        canDelete
        now={now}
      />,
    );
    expect(screen.getByText('No chats match')).toBeInTheDocument();
    expect(screen.queryByText('No chats yet')).not.toBeInTheDocument();
  });

  it('shows a spinner while the first load runs', () => {
    setup({ chats: [], loading: true });
    expect(screen.getByRole('progressbar', { name: 'Loading chats' })).toBeInTheDocument();
    expect(screen.queryByText('No chats yet')).not.toBeInTheDocument();
  });

  it('hides New chat and Rename without write, Delete without delete', () => {
    setup({ canWrite: false, canDelete: false });
    expect(screen.queryByRole('button', { name: 'New chat' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /^Rename chat / })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /^Delete chat / })).not.toBeInTheDocument();
    // The chats can still be opened.
    expect(screen.getByRole('button', { name: /^Top customers/ })).toBeInTheDocument();
  });

  it('offers Load more chats while the list goes on, and says when it is loading', async () => {
    const onLoadMore = vi.fn();
    const { props, user, rerender } = setup({ hasMore: true, onLoadMore });
    await user.click(screen.getByRole('button', { name: 'Load more chats' }));
    expect(onLoadMore).toHaveBeenCalledTimes(1);

    rerender(<ChatSidebar {...props} loadingMore />);
    expect(screen.getByRole('button', { name: /Loading more chats/ })).toBeDisabled();
    rerender(<ChatSidebar {...props} hasMore={false} />);
    expect(screen.queryByRole('button', { name: /more chats/ })).toBeNull();
  });

  it('loads more when the end of the list scrolls into view', () => {
    const observed: { callback: IntersectionObserverCallback; target?: Element; root?: Element | Document | null }[] = [];
    class FakeObserver {
      constructor(
        private callback: IntersectionObserverCallback,
        private options?: IntersectionObserverInit,
      ) {}
      observe(target: Element) {
        observed.push({ callback: this.callback, target, root: this.options?.root });
      }
      disconnect() {}
    }
    vi.stubGlobal('IntersectionObserver', FakeObserver);
    try {
      const onLoadMore = vi.fn();
      setup({ hasMore: true, onLoadMore });
      const button = screen.getByRole('button', { name: 'Load more chats' });
      const watch = observed.find((o) => o.target === button)!;
      // Watched within the list's own scroller.
      expect(watch.root).toBeInstanceOf(HTMLElement);
      expect((watch.root as HTMLElement).contains(button)).toBe(true);
      expect(watch.root).not.toBe(screen.getByRole('navigation', { name: 'Chats' }));
      const seen = (isIntersecting: boolean) =>
        act(() => watch.callback([{ isIntersecting } as IntersectionObserverEntry], {} as IntersectionObserver));
      seen(false);
      expect(onLoadMore).not.toHaveBeenCalled();
      seen(true);
      expect(onLoadMore).toHaveBeenCalledTimes(1);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('keeps Delete with only the delete permission', () => {
    setup({ canWrite: false, canDelete: true });
    expect(screen.queryByRole('button', { name: /^Rename chat / })).not.toBeInTheDocument();
    expect(screen.getAllByRole('button', { name: /^Delete chat / })).toHaveLength(chats.length);
  });

  it('marks a chat on a shared ontology, and one whose ontology is no longer shared', async () => {
    const { user } = setup({
      chats: [
        makeChat({ id: 'a', name: 'Mine', updatedAt: iso(2026, 2, 15, 10) }),
        makeChat({ id: 'b', name: 'Team numbers', updatedAt: iso(2026, 2, 15, 9), ontologyAccess: 'shared' }),
        makeChat({ id: 'c', name: 'Old team numbers', updatedAt: iso(2026, 2, 15, 8), ontologyAccess: 'withdrawn' }),
      ],
    });
    // One's own chats carry no marker; the others say what they are, in their name too.
    expect(screen.getByRole('button', { name: 'Mine' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: `Team numbers ${SHARED_MARKER}` })).toBeInTheDocument();
    const withdrawn = screen.getByRole('button', { name: `Old team numbers ${WITHDRAWN_MARKER}` });
    expect(screen.getAllByRole('img', { name: SHARED_MARKER })).toHaveLength(1);
    await user.hover(within(withdrawn).getByRole('img', { name: WITHDRAWN_MARKER }));
    expect(await screen.findByRole('tooltip')).toHaveTextContent(WITHDRAWN_MARKER);
  });
});
