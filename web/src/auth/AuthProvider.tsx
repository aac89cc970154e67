import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useApi } from '../api/ApiContext';
import { errorMessage, expectOk, unwrap, type ApiClient, type Schemas } from '../api/client';
import { queryKeys } from '../hooks/queries';
import type { CurrentUser } from '../types';
import { AuthContext, type AuthStatus, type AuthValue } from './AuthContext';

function toCurrentUser(user: Schemas['UserPublic']): CurrentUser {
  return { id: user.id, email: user.email, role: user.role, permissions: user.permissions };
}

/** Who is signed in by the cookie, or null: GET /api/auth/session answers 200 either way. */
async function fetchSession(api: ApiClient, signal: AbortSignal): Promise<CurrentUser | null> {
  const session = await unwrap(api.http.GET('/api/auth/session', { signal }));
  return session.user ? toCurrentUser(session.user) : null;
}

const isSession = (query: { queryKey: readonly unknown[] }) => query.queryKey[0] === queryKeys.session[0];

/**
 * The session: who is signed in (the session query, by the HttpOnly cookie), signing in and
 * out, and a lost session (any 401) turning it to signed out, which RequireAuth sends to
 * the sign-in page. Signed out, the cache keeps nothing but the session.
 */
export default function AuthProvider({ children }: { children: ReactNode }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const [signedOutByUser, setSignedOutByUser] = useState(false);

  const session = useQuery({
    queryKey: queryKeys.session,
    queryFn: ({ signal }) => fetchSession(api, signal),
    // It changes by signing in or out, or a 401: never by time.
    staleTime: Infinity,
  });

  useEffect(
    () =>
      api.onUnauthorized(() => {
        if (queryClient.getQueryData(queryKeys.session) === null) return;
        setSignedOutByUser(false);
        queryClient.setQueryData(queryKeys.session, null);
      }),
    [api, queryClient],
  );

  let status: AuthStatus = 'loading';
  if (session.isSuccess) status = session.data ? 'signedIn' : 'signedOut';
  else if (session.isError && !session.isFetching) status = 'error';

  // Signed out (by the button or a 401): once the page has gone, forget what it showed.
  useEffect(() => {
    if (status === 'signedOut') queryClient.removeQueries({ predicate: (query) => !isSession(query) });
  }, [status, queryClient]);

  const { mutateAsync: login } = useMutation({
    mutationFn: ({ email, password }: { email: string; password: string }) =>
      unwrap(api.http.POST('/api/auth/login', { body: { email, password } })),
    onSuccess: async (result) => {
      await queryClient.cancelQueries({ queryKey: queryKeys.session }); // a check under way is out of date
      queryClient.setQueryData(queryKeys.session, toCurrentUser(result.user));
    },
  });
  const { mutateAsync: logout } = useMutation({
    mutationFn: () => expectOk(api.http.POST('/api/auth/logout')),
  });

  const signIn = useCallback(
    async (email: string, password: string) => toCurrentUser((await login({ email, password })).user),
    [login],
  );

  const signOut = useCallback(async () => {
    try {
      await logout();
    } catch {
      // Signed out here all the same; the cookie expires on its own.
    }
    // RequireAuth sends a signed-out person to /signin; without `next`, as they chose to leave.
    setSignedOutByUser(true);
    await queryClient.cancelQueries();
    queryClient.setQueryData(queryKeys.session, null);
  }, [logout, queryClient]);

  const { refetch } = session;
  const reload = useCallback(() => void refetch(), [refetch]);

  const user = session.data ?? null;
  const error = status === 'error' ? errorMessage(session.error) : null;
  const value = useMemo<AuthValue>(
    () => ({
      status,
      user,
      error,
      signedOutByUser,
      can: (permission: string) => user?.permissions.includes(permission) ?? false,
      signIn,
      signOut,
      reload,
    }),
    [status, user, error, signedOutByUser, signIn, signOut, reload],
  );
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}
