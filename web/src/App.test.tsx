import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { errorResponse, frame, sseResponse } from './api/fakeFetch';
import { chat, fakeServer, message, renderApp, type FakeServer } from './pages/testApp';
import { COLOR_MODE_STORAGE_KEY } from './theme';

function server(extra: Partial<FakeServer> = {}): FakeServer {
  return {
    signedIn: true,
    role: 'contributor',
    chats: [chat('c1', 'Revenue by city')],
    messages: { c1: [] },
    ...extra,
  };
}

afterEach(() => {
  localStorage.clear();
});

describe('the app', () => {
  it('sends someone signed out to /signin, coming back to where they were', async () => {
    renderApp('/agent/c1?tab=2', fakeServer(server({ signedIn: false })));
    await waitFor(() =>
      expect(screen.getByTestId('location')).toHaveTextContent('/signin?next=%2Fagent%2Fc1%3Ftab%3D2'),
    );
    expect(screen.getByRole('button', { name: 'Sign in' })).toBeInTheDocument();
  });

  it('asks who is signed in without a 401: a signed-out first visit makes one call, answered 200', async () => {
    const { network } = renderApp('/agent', fakeServer(server({ signedIn: false })));
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent(/^\/signin\?next=%2Fagent$/));
    expect(network.calls()).toEqual(['GET /api/auth/session']);
  });

  it('signs out and forgets everything the page had fetched', async () => {
    const { queryClient } = renderApp('/agent/c1', fakeServer(server()));
    const ui = userEvent.setup();
    await screen.findByRole('heading', { name: 'Revenue by city' });
    expect(queryClient.getQueryCache().getAll().length).toBeGreaterThan(1);
    await ui.click(screen.getByRole('button', { name: 'Account' }));
    await ui.click(await screen.findByRole('menuitem', { name: 'Sign out' }));
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent(/^\/signin$/));
    await waitFor(() => expect(queryClient.getQueryCache().getAll().map((q) => q.queryKey)).toEqual([['session']]));
    expect(queryClient.getQueryData(['session'])).toBeNull();
  });

  it('redirects / and unknown paths to /agent', async () => {
    renderApp('/nowhere', fakeServer(server()));
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent(/^\/agent$/));
  });

  it('a 401 on a chat goes to /signin?next=<that chat>', async () => {
    const state = server();
    state.override = (req) =>
      req.path === '/api/data-agent/chats/c1' ? errorResponse(401, 'UNAUTHORIZED', 'Your session has expired.') : undefined;
    renderApp('/agent/c1?x=1', fakeServer(state));
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('/signin?next=%2Fagent%2Fc1%3Fx%3D1'));
    expect(await screen.findByLabelText('Email')).toBeInTheDocument();
  });

  it('signs out from the account menu', async () => {
    const { network } = renderApp('/agent', fakeServer(server()));
    const ui = userEvent.setup();
    await ui.click(await screen.findByRole('button', { name: 'Account' }));
    const menu = await screen.findByRole('menu');
    expect(menu).toHaveTextContent('ana@example.com');
    expect(menu).toHaveTextContent('contributor');
    await ui.click(within(menu).getByRole('menuitem', { name: 'Sign out' }));
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent(/^\/signin$/));
    expect(network.calls()).toContain('POST /api/auth/logout');
  });

  it('switches the colour mode and remembers it', async () => {
    renderApp('/agent', fakeServer(server()));
    const ui = userEvent.setup();
    await ui.click(await screen.findByRole('button', { name: 'Switch to dark mode' }));
    expect(screen.getByRole('button', { name: 'Switch to light mode' })).toBeInTheDocument();
    expect(localStorage.getItem(COLOR_MODE_STORAGE_KEY)).toBe('dark');
  });

  it('starts in the remembered colour mode', async () => {
    localStorage.setItem(COLOR_MODE_STORAGE_KEY, 'dark');
    renderApp('/signin', fakeServer(server({ signedIn: false })));
    expect(await screen.findByRole('button', { name: 'Switch to light mode' })).toBeInTheDocument();
  });

  it('says a chat that is not there does not exist, with a way back', async () => {
    renderApp('/agent/nope', fakeServer(server()));
    expect(await screen.findByText('This chat does not exist or is not yours.')).toBeInTheDocument();
    await userEvent.setup().click(screen.getByRole('link', { name: 'Back to chats' }));
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent(/^\/agent$/));
  });

  it('shows an error it cannot get past with the server\'s sentence and a retry', async () => {
    const state = server();
    let fail = true;
    state.override = (req) =>
      req.path === '/api/data-agent/chats/c1' && fail ? errorResponse(500, 'INTERNAL_ERROR', 'Something broke on our side.') : undefined;
    renderApp('/agent/c1', fakeServer(state));
    expect(await screen.findByText('Something broke on our side.')).toBeInTheDocument();
    fail = false;
    await userEvent.setup().click(screen.getByRole('button', { name: 'Retry' }));
    await waitFor(() => expect(screen.queryByText('Something broke on our side.')).not.toBeInTheDocument());
    // An empty chat shows its suggestions, not an empty log.
    expect(screen.queryByRole('log')).not.toBeInTheDocument();
  });

  it('re-attaches to an answer being written when the chat loads, and shows it', async () => {
    const state = server({
      messages: {
        c1: [message('m1', 'user', 'How many customers per city?'), message('m2', 'assistant', '', 'generating')],
      },
    });
    state.override = (req) => {
      if (req.path !== '/api/data-agent/chats/c1/messages/m2/events') return undefined;
      return sseResponse({
        chunks: [
          frame(1, 'message_start', { messageId: 'm2', chatId: 'c1', runId: 'r1', startedAt: 'x' }),
          frame(2, 'message_chunk', { chunk: 'Houston has ' }) + frame(3, 'message_chunk', { chunk: '12 customers.' }),
          frame(4, 'message_complete', { messageId: 'm2', content: 'Houston has 12 customers.', metadata: {} }),
        ],
      });
    };
    const { network } = renderApp('/agent/c1', fakeServer(state));
    const log = await screen.findByRole('log', { name: 'Messages' });
    await waitFor(() => expect(log).toHaveTextContent('Houston has 12 customers.'));
    expect(log).toHaveTextContent('How many customers per city?');
    const attach = network.requests.find((r) => r.path.endsWith('/events'));
    expect(attach?.headers.has('Last-Event-ID')).toBe(false);
  });

  it('under StrictMode (effects twice) follows a re-attached answer once', async () => {
    const state = server({
      messages: { c1: [message('m1', 'user', 'Q'), message('m2', 'assistant', '', 'generating')] },
    });
    state.override = (req) =>
      req.path === '/api/data-agent/chats/c1/messages/m2/events'
        ? sseResponse({
            chunks: [frame(1, 'message_chunk', { chunk: 'Houston ' }), frame(2, 'message_chunk', { chunk: 'leads.' })],
            end: 'hang',
          })
        : undefined;
    renderApp('/agent/c1', fakeServer(state), { strict: true });
    const log = await screen.findByRole('log', { name: 'Messages' });
    await waitFor(() => expect(log).toHaveTextContent('Houston leads.'));
    expect(log.textContent).not.toMatch(/Houston.*Houston/);
    expect(screen.getByRole('button', { name: 'Stop generating' })).toBeInTheDocument();
  });

  it('offers the chat list in a drawer on a narrow screen', async () => {
    renderApp('/agent', fakeServer(server()));
    await userEvent.setup().click(await screen.findByRole('button', { name: 'Open chat list' }));
    expect(await screen.findByRole('navigation', { name: 'Chats' })).toBeInTheDocument();
  });

  it('follows the system\'s colour scheme until one is chosen', async () => {
    vi.stubGlobal('matchMedia', mediaMatching('prefers-color-scheme: dark'));
    try {
      renderApp('/signin', fakeServer(server({ signedIn: false })));
      expect(await screen.findByRole('button', { name: 'Switch to light mode' })).toBeInTheDocument();
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('keeps the chat list beside the chat on a wide screen', async () => {
    vi.stubGlobal('matchMedia', mediaMatching('min-width'));
    try {
      renderApp('/agent', fakeServer(server()));
      expect(await screen.findByRole('navigation', { name: 'Chats' })).toBeInTheDocument();
      expect(screen.queryByRole('button', { name: 'Open chat list' })).not.toBeInTheDocument();
    } finally {
      vi.unstubAllGlobals();
    }
  });
});

/** A matchMedia whose queries containing `fragment` match. */
function mediaMatching(fragment: string) {
  return (query: string) =>
    ({
      matches: query.includes(fragment),
      media: query,
      onchange: null,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
      addListener: () => undefined,
      removeListener: () => undefined,
      dispatchEvent: () => false,
    }) as MediaQueryList;
}
