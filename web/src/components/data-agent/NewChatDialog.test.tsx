import { describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import { renderWithTheme } from '../../test/render';
import type { OntologySummary, ProviderView } from '../../types';
import NewChatDialog, { AGENT_MODES, BUILT_IN_PLANNER_NOTE, type NewChatDialogProps } from './NewChatDialog';

const onto = (id: string, name: string, status = 'ready'): OntologySummary => ({
  id,
  name,
  description: null,
  status,
  datasetCount: 3,
  access: 'owner',
  ownerEmail: 'ana@example.com',
});

const shared = (id: string, name: string, ownerEmail: string): OntologySummary => ({
  ...onto(id, name),
  access: 'shared',
  ownerEmail,
});

const providers: ProviderView[] = [
  { id: 'openai', name: 'OpenAI', model: 'gpt-4o-mini', isDefault: true },
  { id: 'anthropic', name: 'Anthropic', model: 'claude-sonnet', isDefault: false },
];

function setup(overrides: Partial<NewChatDialogProps> = {}) {
  const props: NewChatDialogProps = {
    open: true,
    ontologies: [onto('o1', 'Sales'), onto('o2', 'Draft model', 'building'), onto('o3', 'Support')],
    providers,
    onClose: vi.fn(),
    onCreate: vi.fn(),
    ...overrides,
  };
  return { props, ...renderWithTheme(<NewChatDialog {...props} />) };
}

describe('NewChatDialog', () => {
  it('is a dialog titled "New chat" listing only ready ontologies', async () => {
    const { user } = setup();
    const dialog = screen.getByRole('dialog', { name: 'New chat' });
    const select = within(dialog).getByRole('combobox', { name: /Ontology/ });
    await user.click(select);
    const options = within(screen.getByRole('listbox')).getAllByRole('option').map((o) => o.textContent);
    expect(options).toEqual(['Sales', 'Support']);
  });

  it('keeps Create disabled until an ontology is chosen, then sends it', async () => {
    const { props, user } = setup();
    const create = screen.getByRole('button', { name: 'Create' });
    expect(create).toBeDisabled();
    await user.click(screen.getByRole('combobox', { name: /Ontology/ }));
    await user.click(screen.getByRole('option', { name: 'Support' }));
    expect(create).toBeEnabled();
    await user.click(create);
    expect(props.onCreate).toHaveBeenCalledWith({ ontologyId: 'o3' });
  });

  it('preselects the only ready ontology', async () => {
    const { props, user } = setup({ ontologies: [onto('o1', 'Sales'), onto('o2', 'Draft', 'failed')] });
    expect(screen.getByRole('combobox', { name: /Ontology/ })).toHaveTextContent('Sales');
    await user.click(screen.getByRole('button', { name: 'Create' }));
    expect(props.onCreate).toHaveBeenCalledWith({ ontologyId: 'o1' });
  });

  it('sends the name and the chosen model', async () => {
    const { props, user } = setup({ ontologies: [onto('o1', 'Sales')] });
    await user.type(screen.getByRole('textbox', { name: 'Chat name (optional)' }), '  Q3 review  ');
    const model = screen.getByRole('combobox', { name: /Model/ });
    expect(model).toHaveTextContent('Default (OpenAI · gpt-4o-mini)');
    await user.click(model);
    const options = within(screen.getByRole('listbox')).getAllByRole('option').map((o) => o.textContent);
    expect(options).toEqual(['Default (OpenAI · gpt-4o-mini)', 'OpenAI · gpt-4o-mini', 'Anthropic · claude-sonnet']);
    await user.click(screen.getByRole('option', { name: 'Anthropic · claude-sonnet' }));
    await user.click(screen.getByRole('button', { name: 'Create' }));
    expect(props.onCreate).toHaveBeenCalledWith({ ontologyId: 'o1', name: 'Q3 review', llmProvider: 'anthropic' });
  });

  it('creates with Enter in the name field', async () => {
    const { props, user } = setup({ ontologies: [onto('o1', 'Sales')] });
    await user.type(screen.getByRole('textbox', { name: 'Chat name (optional)' }), 'Quick{Enter}');
    expect(props.onCreate).toHaveBeenCalledWith({ ontologyId: 'o1', name: 'Quick' });
  });

  it('says so when no ontology is ready, and cannot create', () => {
    setup({ ontologies: [onto('o2', 'Draft', 'building')] });
    expect(screen.queryByRole('combobox', { name: /Ontology/ })).toBeNull();
    expect(screen.getByText(/No ontology is ready yet/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Create' })).toBeDisabled();
  });

  it('sends the chosen answer mode, the built-in planner among them', async () => {
    const { props, user } = setup({ ontologies: [onto('o1', 'Sales')] });
    const mode = screen.getByRole('combobox', { name: /Answer mode/ });
    expect(mode).toHaveTextContent("Default (the server's)");
    await user.click(mode);
    const options = within(screen.getByRole('listbox')).getAllByRole('option').map((o) => o.textContent);
    expect(options).toEqual(["Default (the server's)", ...AGENT_MODES.map((m) => m.label)]);
    await user.click(screen.getByRole('option', { name: /Built-in planner/ }));
    await user.click(screen.getByRole('button', { name: 'Create' }));
    expect(props.onCreate).toHaveBeenCalledWith({ ontologyId: 'o1', agentMode: 'offline' });
  });

  it('says the built-in planner answers when no model is configured', async () => {
    const { props, user } = setup({ providers: [], ontologies: [onto('o1', 'Sales')] });
    expect(screen.queryByRole('combobox', { name: /Model/ })).toBeNull();
    expect(screen.getByText(BUILT_IN_PLANNER_NOTE)).toBeInTheDocument();
    // The chat can be created, and its questions will be answered.
    await user.click(screen.getByRole('button', { name: 'Create' }));
    expect(props.onCreate).toHaveBeenCalledWith({ ontologyId: 'o1' });
  });

  it('closes on Cancel and on Escape', async () => {
    const { props, user } = setup();
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(props.onClose).toHaveBeenCalledTimes(1);
    await user.keyboard('{Escape}');
    expect(props.onClose).toHaveBeenCalledTimes(2);
    expect(props.onCreate).not.toHaveBeenCalled();
  });

  it('shows the error prop and a failed create', async () => {
    const { user, rerender, props } = setup({ ontologies: [onto('o1', 'Sales')], error: 'Server said no.' });
    expect(screen.getByText('Server said no.')).toBeInTheDocument();
    const onCreate = vi.fn().mockRejectedValue(new Error('Ontology is not ready'));
    rerender(<NewChatDialog {...props} error={null} onCreate={onCreate} />);
    await user.click(screen.getByRole('button', { name: 'Create' }));
    expect(await screen.findByText('Ontology is not ready')).toBeInTheDocument();
    await waitFor(() => expect(screen.getByRole('button', { name: 'Create' })).toBeEnabled());
  });

  it('lists shared ontologies after one\'s own, each with its owner', async () => {
    const { props, user } = setup({
      ontologies: [shared('o4', 'Finance', 'bo@example.com'), onto('o1', 'Sales'), shared('o5', 'Draft', 'cy@example.com')],
    });
    await user.click(screen.getByRole('combobox', { name: /Ontology/ }));
    const listbox = screen.getByRole('listbox');
    expect(within(listbox).getAllByRole('option').map((o) => o.textContent)).toEqual([
      'Sales',
      'FinanceShared by bo@example.com',
      'DraftShared by cy@example.com',
    ]);

    await user.click(screen.getByRole('option', { name: /Finance.*Shared by bo@example\.com/ }));
    // The field shows the name; its help says whose it is.
    const select = screen.getByRole('combobox', { name: /Ontology/ });
    expect(select).toHaveTextContent(/^Finance$/);
    expect(screen.getByText(/^Shared by bo@example\.com: you can ask about it/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Create' }));
    expect(props.onCreate).toHaveBeenCalledWith({ ontologyId: 'o4' });
  });

  it('preselects the only ready ontology when it is a shared one, and says whose it is', () => {
    setup({ ontologies: [shared('o4', 'Finance', 'bo@example.com')] });
    expect(screen.getByRole('combobox', { name: /Ontology/ })).toHaveTextContent(/^Finance$/);
    expect(screen.getByText(/^Shared by bo@example\.com: you can ask about it/)).toBeInTheDocument();
  });

  it('renders nothing when closed', () => {
    setup({ open: false });
    expect(screen.queryByRole('dialog')).toBeNull();
  });
});
