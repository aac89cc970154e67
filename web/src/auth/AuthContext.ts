import { createContext, useContext } from 'react';
import type { CurrentUser } from '../types';

export type AuthStatus = 'loading' | 'signedIn' | 'signedOut' | 'error';

export interface AuthValue {
  status: AuthStatus;
  user: CurrentUser | null;
  /** Why the session could not be checked (status `error`): a sentence. */
  error: string | null;
  /** Signed out by the Sign out button (not a lost session): no way back to offer. */
  signedOutByUser: boolean;
  /** Whether the signed-in user holds a permission (`data_agent:write`, …). */
  can: (permission: string) => boolean;
  /** Signs in; throws ApiError with the server's sentence when refused. */
  signIn: (email: string, password: string) => Promise<CurrentUser>;
  /** Signs out (the server clears the cookie) and goes to the sign-in page. */
  signOut: () => Promise<void>;
  /** Checks the session again (after status `error`). */
  reload: () => void;
}

export const AuthContext = createContext<AuthValue | null>(null);

/** The session (inside AuthProvider). */
export function useAuth(): AuthValue {
  const auth = useContext(AuthContext);
  if (!auth) throw new Error('useAuth() needs an <AuthProvider> above it.');
  return auth;
}

export const PERMISSIONS = {
  chatRead: 'data_agent:read',
  chatWrite: 'data_agent:write',
  chatDelete: 'data_agent:delete',
} as const;
