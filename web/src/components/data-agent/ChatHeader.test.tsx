import { describe, expect, it, vi } from 'vitest';
import { screen } from '@testing-library/react';
import { makeChat, renderWithTheme } from '../../test/render';
import ChatHeader from './ChatHeader';

describe('ChatHeader', () => {
  const chat = makeChat({ name: 'Revenue by region' });

  it('shows the chat name as the heading, the ontology and the model', () => {
    renderWithTheme(<ChatHeader chat={chat} ontologyName="Sales" modelLabel="OpenAI · gpt-4o-mini" />);
    expect(screen.getByRole('heading', { level: 1, name: 'Revenue by region' })).toBeInTheDocument();
    expect(screen.getByText('Sales')).toBeInTheDocument();
    expect(screen.getByText('OpenAI · gpt-4o-mini')).toBeInTheDocument();
  });

  it('says when no model is configured', () => {
    renderWithTheme(<ChatHeader chat={chat} ontologyName={null} modelLabel={null} />);
    expect(screen.getByText('No model configured')).toBeInTheDocument();
  });

  it('opens the chat list from its menu button', async () => {
    const onOpenSidebar = vi.fn();
    const { user } = renderWithTheme(
      <ChatHeader chat={chat} ontologyName="Sales" modelLabel={null} onOpenSidebar={onOpenSidebar} />,
    );
    await user.click(screen.getByRole('button', { name: 'Open chat list' }));
    expect(onOpenSidebar).toHaveBeenCalledTimes(1);
  });

  it('has no menu button without onOpenSidebar', () => {
    renderWithTheme(<ChatHeader chat={chat} ontologyName="Sales" modelLabel={null} />);
    expect(screen.queryByRole('button', { name: 'Open chat list' })).toBeNull();
  });
});
