import { describe, expect, it, vi } from 'vitest';
import { screen, within } from '@testing-library/react';
import { renderWithTheme } from '../../test/render';
import type { Suggestion } from '../../types';
import WelcomeScreen from './WelcomeScreen';

const suggestions: Suggestion[] = [
  { title: 'Top customers', description: 'Top 10 customers by revenue', prompt: 'Show the top 10 customers by revenue' },
  { title: 'Revenue by month', description: 'How revenue changed month by month', prompt: 'Show revenue by month' },
  { title: 'Orders per region', description: 'How many orders per region?', prompt: 'How many orders per region?' },
];

describe('WelcomeScreen', () => {
  it('shows the icon, title, text and New chat on the no-chat screen', async () => {
    const onNewChat = vi.fn();
    const { user } = renderWithTheme(
      <WelcomeScreen suggestions={suggestions} onSuggestion={vi.fn()} onNewChat={onNewChat} canWrite />,
    );
    expect(screen.getByRole('heading', { name: 'Data Agent' })).toBeInTheDocument();
    expect(screen.getByText(/Ask questions about your data in natural language/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'New chat' }));
    expect(onNewChat).toHaveBeenCalledTimes(1);
  });

  it('shows suggestion cards with title and description; a click sends the prompt', async () => {
    const onSuggestion = vi.fn();
    const { user } = renderWithTheme(
      <WelcomeScreen suggestions={suggestions} onSuggestion={onSuggestion} onNewChat={vi.fn()} canWrite />,
    );
    const list = screen.getByRole('list', { name: 'Suggested questions' });
    expect(within(list).getAllByRole('listitem')).toHaveLength(3);
    const card = screen.getByRole('button', { name: /Top customers/ });
    expect(card).toHaveTextContent('Top 10 customers by revenue');
    await user.click(card);
    expect(onSuggestion).toHaveBeenCalledWith('Show the top 10 customers by revenue');
  });

  it('lets the keyboard reach and activate the cards (Enter and Space)', async () => {
    const onSuggestion = vi.fn();
    const { user } = renderWithTheme(
      <WelcomeScreen suggestions={suggestions} onSuggestion={onSuggestion} onNewChat={vi.fn()} canWrite />,
    );
    await user.tab(); // New chat
    expect(screen.getByRole('button', { name: 'New chat' })).toHaveFocus();
    await user.tab();
    expect(screen.getByRole('button', { name: /Top customers/ })).toHaveFocus();
    await user.keyboard('{Enter}');
    expect(onSuggestion).toHaveBeenLastCalledWith('Show the top 10 customers by revenue');
    await user.tab();
    expect(screen.getByRole('button', { name: /Revenue by month/ })).toHaveFocus();
    await user.keyboard(' ');
    expect(onSuggestion).toHaveBeenLastCalledWith('Show revenue by month');
  });

  it('hides New chat and disables the cards without the write permission', () => {
    renderWithTheme(<WelcomeScreen suggestions={suggestions} onSuggestion={vi.fn()} onNewChat={vi.fn()} canWrite={false} />);
    expect(screen.queryByRole('button', { name: 'New chat' })).toBeNull();
    expect(screen.getByRole('button', { name: /Top customers/ })).toBeDisabled();
  });

  it('inside an empty chat: the ontology name and the cards, no New chat', async () => {
    const onSuggestion = vi.fn();
    const { user } = renderWithTheme(
      <WelcomeScreen ontologyName="Sales" suggestions={suggestions} onSuggestion={onSuggestion} canWrite={false} />,
    );
    expect(screen.getByRole('heading', { name: 'Ask about Sales' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'New chat' })).toBeNull();
    // In a chat the card fills or sends the question: always clickable.
    await user.click(screen.getByRole('button', { name: /Orders per region/ }));
    expect(onSuggestion).toHaveBeenCalledWith('How many orders per region?');
  });

  it('names the ontology above the cards on the no-chat screen when given', () => {
    renderWithTheme(
      <WelcomeScreen ontologyName="Sales" suggestions={suggestions} onSuggestion={vi.fn()} onNewChat={vi.fn()} canWrite />,
    );
    expect(screen.getByText('Ask about Sales')).toBeInTheDocument();
  });

  it('shows no list without suggestions', () => {
    renderWithTheme(<WelcomeScreen suggestions={[]} onSuggestion={vi.fn()} onNewChat={vi.fn()} canWrite />);
    expect(screen.queryByRole('list')).toBeNull();
  });

  it('offers the chat list button when asked', async () => {
    const onOpenSidebar = vi.fn();
    const { user } = renderWithTheme(
      <WelcomeScreen suggestions={[]} onSuggestion={vi.fn()} onNewChat={vi.fn()} canWrite onOpenSidebar={onOpenSidebar} />,
    );
    await user.click(screen.getByRole('button', { name: 'Open chat list' }));
    expect(onOpenSidebar).toHaveBeenCalled();
  });
});
