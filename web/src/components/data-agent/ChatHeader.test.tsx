import { describe, expect, it, vi } from 'vitest';
import { screen } from '@testing-library/react';
import { makeChat, renderWithTheme } from '../../test/render';
import ChatHeader, { BUILT_IN_PLANNER } from './ChatHeader';

describe('ChatHeader', () => {
  const chat = makeChat({ name: 'Revenue by region' });

  it('shows the chat name as the heading, the ontology and the model', () => {
    renderWithTheme(<ChatHeader chat={chat} ontologyName="Sales" modelLabel="OpenAI · gpt-4o-mini" />);
    expect(screen.getByRole('heading', { level: 1, name: 'Revenue by region' })).toBeInTheDocument();
    expect(screen.getByText('Sales')).toBeInTheDocument();
    expect(screen.getByText('OpenAI · gpt-4o-mini')).toBeInTheDocument();
  });

  it('says the built-in planner answers when no model is configured', () => {
    renderWithTheme(<ChatHeader chat={chat} ontologyName={null} modelLabel={null} />);
    expect(screen.getByText(BUILT_IN_PLANNER)).toBeInTheDocument();
    expect(screen.getByTitle(/No model is configured/)).toBeInTheDocument();
  });

  it('says the built-in planner answers an offline chat, even with a model', () => {
    const offline = makeChat({ agentMode: 'offline' });
    renderWithTheme(<ChatHeader chat={offline} ontologyName="Sales" modelLabel="OpenAI · gpt-4o-mini" />);
    expect(screen.getByText(BUILT_IN_PLANNER)).toBeInTheDocument();
    expect(screen.queryByText('OpenAI · gpt-4o-mini')).toBeNull();
  });

  it('says whose a shared ontology is', () => {
    const shared = makeChat({ ontologyAccess: 'shared' });
    renderWithTheme(<ChatHeader chat={shared} ontologyName="Sales" sharedBy="bo@example.com" modelLabel={null} />);
    expect(screen.getByText('Sales')).toBeInTheDocument();
    expect(screen.getByText('Shared by bo@example.com')).toBeInTheDocument();
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
