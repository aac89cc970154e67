import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useApi } from '../api/ApiContext';
import { ApiError, errorMessage, expectOk, unwrap, type Schemas } from '../api/client';
import type { CurrentUser } from '../types';
import { AuthContext, type AuthStatus, type AuthValue } from './AuthContext';

interface SessionState {
  status: AuthStatus;
  user: CurrentUser | null;
  error: string | null;
  signedOutByUser?: boolean;
}

const SIGNED_OUT: SessionState = { status: 'signedOut', user: null, error: null };

function toCurrentUser(user: Schemas['UserPublic']): CurrentUser {
  return { id: user.id, email: user.email, role: user.role, permissions: user.permissions };
}

/**
 * The session: who is signed in (GET /api/auth/me, by the HttpOnly cookie), signing in and
 * out, and a lost session (any 401) turning the state to signed out, which RequireAuth
 * sends to the sign-in page.
 */
export default function AuthProvider({ children }: { children: ReactNode }) {
  const api = useApi();
  const [session, setSession] = useState<SessionState>({ status: 'loading', user: null, error: null });
  const [check, setCheck] = useState(0);
  const checking = useRef<AbortController | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    checking.current = controller;
    unwrap(api.http.GET('/api/auth/me', { signal: controller.signal }))
      .then((user) => {
        if (!controller.signal.aborted) setSession({ status: 'signedIn', user: toCurrentUser(user), error: null });
      })
      .catch((error: unknown) => {
        if (controller.signal.aborted) return;
        if (error instanceof ApiError && error.status === 401) setSession(SIGNED_OUT);
        else setSession({ status: 'error', user: null, error: errorMessage(error) });
      });
    return () => controller.abort();
  }, [api, check]);

  useEffect(() => api.onUnauthorized(() => setSession((s) => (s.status === 'signedOut' ? s : SIGNED_OUT))), [api]);

  const signIn = useCallback(
    async (email: string, password: string) => {
      const result = await unwrap(api.http.POST('/api/auth/login', { body: { email, password } }));
      checking.current?.abort(); // a session check still under way is out of date
      const user = toCurrentUser(result.user);
      setSession({ status: 'signedIn', user, error: null });
      return user;
    },
    [api],
  );

  const signOut = useCallback(async () => {
    try {
      await expectOk(api.http.POST('/api/auth/logout'));
    } catch {
      // Signed out here all the same; the cookie expires on its own.
    }
    // RequireAuth sends a signed-out person to /signin; without `next`, as they chose to leave.
    setSession({ ...SIGNED_OUT, signedOutByUser: true });
  }, [api]);

  const reload = useCallback(() => {
    setSession({ status: 'loading', user: null, error: null });
    setCheck((n) => n + 1);
  }, []);

  const value = useMemo<AuthValue>(
    () => ({
      status: session.status,
      user: session.user,
      error: session.error,
      signedOutByUser: session.signedOutByUser ?? false,
      can: (permission: string) => session.user?.permissions.includes(permission) ?? false,
      signIn,
      signOut,
      reload,
    }),
    [session, signIn, signOut, reload],
  );
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}
