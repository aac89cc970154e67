import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { errorResponse, frame, jsonResponse, sseResponse } from '../api/fakeFetch';
import { WITHDRAWN_MARKER, WITHDRAWN_MESSAGE, WITHDRAWN_REASON } from '../components/data-agent/accessLabels';
import { chat, fakeServer, message, renderApp, sharedOntology, type FakeServer } from './testApp';

function server(extra: Partial<FakeServer> = {}): FakeServer {
  return { signedIn: true, role: 'contributor', chats: [chat('c1', 'Revenue by city')], messages: { c1: [] }, ...extra };
}

describe('DataAgentPage', () => {
  it('asks a suggestion in a new chat, claims its answer at once, and forgets the claim', async () => {
    const state = server({ chats: [] });
    state.override = (req) => {
      if (req.method === 'POST' && req.path === '/api/data-agent/chats') {
        const created = chat('c9', 'New chat');
        state.chats = [created, ...state.chats];
        state.messages.c9 = [];
        return jsonResponse(201, { data: { ...created, messages: [] } });
      }
      if (req.method === 'POST' && req.path === '/api/data-agent/chats/c9/messages') {
        const pair = {
          userMessage: { ...message('m1', 'user', 'Top 10 customers by revenue'), chatId: 'c9' },
          assistantMessage: { ...message('m2', 'assistant', '', 'generating'), chatId: 'c9' },
        };
        state.messages.c9 = [pair.userMessage, pair.assistantMessage];
        return jsonResponse(201, { data: pair });
      }
      if (req.path === '/api/data-agent/chats/c9/messages/m2/stream') {
        return sseResponse({ chunks: [frame(1, 'message_complete', { messageId: 'm2', content: 'Acme leads.', metadata: {} })] });
      }
      return undefined;
    };
    const { network } = renderApp('/agent', fakeServer(state));
    await userEvent.setup().click(await screen.findByRole('button', { name: /Top 10 customers by revenue/ }));

    const log = await screen.findByRole('log', { name: 'Messages' });
    await waitFor(() => expect(log).toHaveTextContent('Acme leads.'));
    expect(screen.getByTestId('location')).toHaveTextContent(/^\/agent\/c9$/);
    const calls = network.calls();
    expect(calls).toContain('POST /api/data-agent/chats/c9/messages/m2/stream');
    expect(calls.some((c) => c.endsWith('/events'))).toBe(false);
    // A reload would find no claim to make again (history state survives a reload).
    await waitFor(() => expect(screen.getByTestId('location')).toHaveAttribute('data-state', 'null'));
  });

  it('gives a refused question back each time, even the same text twice', async () => {
    const state = server();
    state.override = (req) =>
      req.method === 'POST' && req.path === '/api/data-agent/chats/c1/messages'
        ? errorResponse(429, 'RATE_LIMITED', 'You already have an answer being generated.')
        : undefined;
    renderApp('/agent/c1', fakeServer(state));
    const ui = userEvent.setup();
    const input = await screen.findByRole('textbox', { name: 'Message' });

    await ui.type(input, 'Hello');
    await ui.click(screen.getByRole('button', { name: 'Send message' }));
    await waitFor(() => expect(input).toHaveValue('Hello'));
    expect(await screen.findByText('You already have an answer being generated.')).toBeInTheDocument();

    await ui.click(screen.getByRole('button', { name: 'Send message' }));
    await waitFor(() => expect(input).toHaveValue('Hello'));
  });

  it('Retry on a failed answer asks it again and streams the new answer after the old one', async () => {
    const state = server({
      messages: {
        c1: [message('m1', 'user', 'Top city?'), { ...message('m2', 'assistant', '', 'failed'), metadata: { error: { code: 'AGENT_ERROR', message: 'The model failed.' } } }],
      },
    });
    state.override = (req) => {
      if (req.method === 'POST' && req.path === '/api/data-agent/chats/c1/messages/m2/regenerate') {
        const pair = { userMessage: state.messages.c1[0], assistantMessage: message('m3', 'assistant', '', 'generating') };
        state.messages.c1 = [...state.messages.c1, pair.assistantMessage];
        return jsonResponse(201, { data: pair });
      }
      if (req.method === 'POST' && req.path === '/api/data-agent/chats/c1/messages/m3/stream') {
        state.messages.c1 = [...state.messages.c1.slice(0, 2), message('m3', 'assistant', 'Houston.')];
        return sseResponse({ chunks: [frame(1, 'message_complete', { messageId: 'm3', content: 'Houston.', metadata: {} })] });
      }
      return undefined;
    };
    const { network } = renderApp('/agent/c1', fakeServer(state));
    const log = await screen.findByRole('log', { name: 'Messages' });
    expect(log).toHaveTextContent('The model failed.');
    await userEvent.setup().click(screen.getByRole('button', { name: 'Retry' }));

    await waitFor(() => expect(log).toHaveTextContent('Houston.'));
    // The failed answer stays in the history; the question is not asked twice.
    expect(log).toHaveTextContent('The model failed.');
    expect(screen.getAllByText('Top city?')).toHaveLength(1);
    expect(network.calls().filter((c) => c.startsWith('POST'))).toEqual([
      'POST /api/data-agent/chats/c1/messages/m2/regenerate',
      'POST /api/data-agent/chats/c1/messages/m3/stream',
    ]);
    // Only the last answer offers asking again: now Regenerate, on the new one.
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull());
    expect(screen.getByRole('button', { name: 'Regenerate' })).toBeInTheDocument();
  });

  it('a viewer is offered neither Retry nor Regenerate', async () => {
    const state = server({ role: 'viewer', messages: { c1: [message('m1', 'user', 'Q'), message('m2', 'assistant', 'A.')] } });
    renderApp('/agent/c1', fakeServer(state));
    const log = await screen.findByRole('log', { name: 'Messages' });
    expect(log).toHaveTextContent('A.');
    expect(screen.queryByRole('button', { name: 'Regenerate' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull();
  });

  // Long: over a hundred rows in jsdom. A viewer's rows have no actions, and rows are found by
  // text, not role: each is several times faster.
  it('the chat list pages past the first 100 chats', { timeout: 30_000 }, async () => {
    const chats = Array.from({ length: 130 }, (_, i) => chat(`c${i + 1}`, `Chat number ${i + 1}`));
    const { network } = renderApp('/agent', fakeServer(server({ chats, role: 'viewer' })));
    const ui = userEvent.setup();
    await ui.click(await screen.findByRole('button', { name: 'Open chat list' }));
    const list = await screen.findByRole('navigation', { name: 'Chats' });
    const rows = () => within(list).getAllByText(/^Chat number \d+$/);
    await waitFor(() => expect(rows()).toHaveLength(100), { timeout: 5000 });
    await ui.click(within(list).getByRole('button', { name: 'Load more chats' }));
    await waitFor(() => expect(rows()).toHaveLength(130), { timeout: 5000 });
    expect(rows().at(-1)).toHaveTextContent('Chat number 130');
    expect(within(list).queryByRole('button', { name: 'Load more chats' })).toBeNull();
    const pages = network.requests
      .filter((r) => r.path === '/api/data-agent/chats')
      .map((r) => new URL(r.url, 'http://test').searchParams.get('page'));
    expect(pages).toEqual(['1', '2']);
  });

  it('keeps the chat header in step with a rename from the list', async () => {
    renderApp('/agent/c1', fakeServer(server()));
    const ui = userEvent.setup();
    expect(await screen.findByRole('heading', { name: 'Revenue by city' })).toBeInTheDocument();
    await ui.click(await screen.findByRole('button', { name: 'Open chat list' }));
    await ui.click(await screen.findByRole('button', { name: 'Rename chat Revenue by city' }));
    const name = await screen.findByRole('textbox', { name: 'Name' });
    await ui.clear(name);
    await ui.type(name, 'Revenue 2026{Enter}');
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Rename chat' })).not.toBeInTheDocument());
    await ui.keyboard('{Escape}'); // closes the drawer
    expect(await screen.findByRole('heading', { name: 'Revenue 2026' })).toBeInTheDocument();
  });

  it('deleting the open chat goes back to /agent without asking for it again', async () => {
    const { network } = renderApp('/agent/c1', fakeServer(server()));
    const ui = userEvent.setup();
    await screen.findByRole('heading', { name: 'Revenue by city' });
    await ui.click(await screen.findByRole('button', { name: 'Open chat list' }));
    await ui.click(await screen.findByRole('button', { name: 'Delete chat Revenue by city' }));
    await ui.click(await screen.findByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent(/^\/agent$/));
    expect(await screen.findByText('No chats yet')).toBeInTheDocument();
    expect(network.calls()).toContain('DELETE /api/data-agent/chats/c1');
    expect(network.calls().filter((c) => c === 'GET /api/data-agent/chats/c1')).toHaveLength(1);
  });

  describe('an ontology shared with the person', () => {
    const WITHDRAWN_403 = "This chat's ontology is no longer shared with you: you can read the chat, but not ask in it. Ask the ontology's owner to share it again.";

    it('a chat on it says whose it is, and its suggestions are asked as for one\'s own', async () => {
      const state = server({
        chats: [chat('c1', 'Team numbers', { ontologyId: 'o7', ontologyAccess: 'shared' })],
        ontologies: [sharedOntology('o7', 'Finance', 'bo@example.com')],
      });
      const { network } = renderApp('/agent/c1', fakeServer(state));
      expect(await screen.findByRole('heading', { name: 'Team numbers' })).toBeInTheDocument();
      expect(await screen.findByText('Shared by bo@example.com')).toBeInTheDocument();
      expect(screen.getByText('Finance')).toBeInTheDocument();
      expect(await screen.findByRole('button', { name: /Top 10 customers by revenue/ })).toBeEnabled();
      expect(network.calls()).toContain('GET /api/ontologies/o7/suggestions');
      expect(screen.getByRole('textbox', { name: 'Message' })).toBeEnabled();
      expect(screen.queryByText(WITHDRAWN_MESSAGE)).toBeNull();
    });

    it('a chat whose ontology was withdrawn reads, but says why it cannot ask', async () => {
      const state = server({
        chats: [chat('c1', 'Old team numbers', { ontologyId: 'o7', ontologyAccess: 'withdrawn' })],
        messages: { c1: [message('m1', 'user', 'Q'), message('m2', 'assistant', 'Forty-two.')] },
        ontologies: [],
      });
      const { network } = renderApp('/agent/c1', fakeServer(state));
      const log = await screen.findByRole('log', { name: 'Messages' });
      expect(log).toHaveTextContent('Forty-two.');
      expect(screen.getByRole('alert')).toHaveTextContent(WITHDRAWN_MESSAGE);
      const input = screen.getByRole('textbox', { name: 'Message' });
      expect(input).toBeDisabled();
      expect(input).toHaveAccessibleDescription(WITHDRAWN_REASON);
      expect(screen.getByRole('button', { name: 'Send message' })).toBeDisabled();
      expect(screen.queryByRole('button', { name: 'Regenerate' })).toBeNull();
      expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull();
      // The list marks it too.
      await userEvent.setup().click(screen.getByRole('button', { name: 'Open chat list' }));
      const list = await screen.findByRole('navigation', { name: 'Chats' });
      expect(await within(list).findByRole('img', { name: WITHDRAWN_MARKER })).toBeInTheDocument();
      expect(network.calls().some((c) => c.endsWith('/suggestions'))).toBe(false);
    });

    it('an empty withdrawn chat offers no suggestions to ask', async () => {
      const state = server({
        chats: [chat('c1', 'Never asked', { ontologyId: 'o7', ontologyAccess: 'withdrawn' })],
        ontologies: [],
      });
      const { network } = renderApp('/agent/c1', fakeServer(state));
      expect(await screen.findByText(WITHDRAWN_MESSAGE)).toBeInTheDocument();
      expect(screen.queryByRole('list', { name: 'Suggested questions' })).toBeNull();
      expect(screen.getByRole('textbox', { name: 'Message' })).toBeDisabled();
      expect(network.calls().some((c) => c.endsWith('/suggestions'))).toBe(false);
    });

    it('a 403 on sending (withdrawn since the chat was read) shows the server\'s sentence and turns the chat read-only', async () => {
      const state = server({
        chats: [chat('c1', 'Team numbers', { ontologyId: 'o7', ontologyAccess: 'shared' })],
        messages: { c1: [message('m1', 'user', 'Q'), message('m2', 'assistant', 'Forty-two.')] },
        ontologies: [sharedOntology('o7', 'Finance', 'bo@example.com')],
      });
      state.override = (req) => {
        if (req.method === 'POST' && req.path === '/api/data-agent/chats/c1/messages') {
          // The owner withdrew the share a moment ago.
          state.chats = state.chats.map((c) => ({ ...c, ontologyAccess: 'withdrawn' as const }));
          state.ontologies = [];
          return errorResponse(403, 'FORBIDDEN', WITHDRAWN_403);
        }
        return undefined;
      };
      const { network } = renderApp('/agent/c1', fakeServer(state));
      const ui = userEvent.setup();
      const input = await screen.findByRole('textbox', { name: 'Message' });
      expect(screen.getByRole('button', { name: 'Regenerate' })).toBeEnabled();
      await ui.type(input, 'And last year?{Enter}');

      // The server's sentence (the notice), then the read-only chat: the alert above the
      // disabled input says it too.
      await waitFor(() => expect(input).toBeDisabled());
      const alerts = screen.getAllByRole('alert').filter((a) => a.textContent === WITHDRAWN_403);
      expect(alerts).toHaveLength(2);
      expect(screen.getByText(WITHDRAWN_REASON)).toBeInTheDocument();
      expect(screen.queryByRole('button', { name: 'Regenerate' })).toBeNull();
      // The question is given back, not lost.
      expect(input).toHaveValue('And last year?');
      await waitFor(() => expect(screen.queryByText('Shared by bo@example.com')).toBeNull());
      const reads = network.calls().filter((c) => c === 'GET /api/data-agent/chats/c1');
      expect(reads).toHaveLength(2);
    });
  });
});
