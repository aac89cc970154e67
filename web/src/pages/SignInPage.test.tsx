import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { safeNextPath } from '../auth/nextPath';
import { chat, fakeServer, renderApp, type FakeServer } from './testApp';

function server(extra: Partial<FakeServer> = {}): FakeServer {
  return { signedIn: false, role: 'contributor', chats: [chat('c1', 'Revenue')], messages: {}, ...extra };
}

async function signIn(password: string) {
  const ui = userEvent.setup();
  await ui.type(await screen.findByLabelText('Email'), 'ana@example.com');
  await ui.type(screen.getByLabelText('Password'), password);
  await ui.click(screen.getByRole('button', { name: 'Sign in' }));
}

describe('SignInPage', () => {
  it('signs in and goes on to next', async () => {
    const { network } = renderApp('/signin?next=%2Fagent%2Fc1%3Ftab%3D2', fakeServer(server()));
    expect(screen.getByLabelText('Password')).toHaveAttribute('type', 'password');
    await signIn('right-password');
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('/agent/c1?tab=2'));
    const login = network.requests.find((r) => r.path === '/api/auth/login');
    expect(JSON.parse(login!.body)).toEqual({ email: 'ana@example.com', password: 'right-password' });
  });

  it('shows the server\'s sentence in an alert and stays', async () => {
    renderApp('/signin?next=%2Fagent', fakeServer(server()));
    await signIn('wrong-password');
    expect(await screen.findByRole('alert')).toHaveTextContent('Wrong email or password.');
    // The sign-in's own 401 is an answer, not a lost session: no redirect.
    expect(screen.getByTestId('location')).toHaveTextContent(/^\/signin\?next=%2Fagent$/);
    expect(screen.getByRole('button', { name: 'Sign in' })).toBeEnabled();
  });

  it('asks for both fields before calling the server', async () => {
    const { network } = renderApp('/signin', fakeServer(server()));
    await userEvent.setup().click(await screen.findByRole('button', { name: 'Sign in' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Enter your email and password.');
    expect(network.calls()).not.toContain('POST /api/auth/login');
  });

  it.each(['//evil.com', 'https://evil.com', '/\\evil.com', 'javascript:alert(1)'])(
    'ignores a next of %s and goes to /agent',
    async (next) => {
      renderApp(`/signin?next=${encodeURIComponent(next)}`, fakeServer(server()));
      await signIn('right-password');
      await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent(/^\/agent$/));
    },
  );

  it('sends someone already signed in straight on', async () => {
    renderApp('/signin?next=%2Fagent%2Fc1', fakeServer(server({ signedIn: true })));
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent(/^\/agent\/c1$/));
  });
});

describe('safeNextPath', () => {
  it('keeps same-origin paths', () => {
    expect(safeNextPath('/agent/c1?x=1#m2')).toBe('/agent/c1?x=1#m2');
    expect(safeNextPath('/agent')).toBe('/agent');
  });

  it.each([null, '', 'agent', '//evil.com', '///evil.com', 'https://evil.com', '/\\evil.com', '/\tevil', ' /agent', '/signin', '/signin?next=/x'])(
    'refuses %j',
    (next) => {
      expect(safeNextPath(next)).toBe('/agent');
    },
  );
});
