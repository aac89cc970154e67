import type { QueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router';
import { ApiProvider } from './api/ApiContext';
import type { ApiClient } from './api/client';
import AuthProvider from './auth/AuthProvider';
import RequireAuth from './auth/RequireAuth';
import AppLayout from './components/layout/AppLayout';
import ColorModeProvider from './components/layout/ColorModeProvider';
import DataAgentPage from './pages/DataAgentPage';
import SignInPage from './pages/SignInPage';

/** The page's routes: /signin, and the data agent at /agent and /agent/:chatId. */
export function AppRoutes() {
  return (
    <Routes>
      <Route path="/signin" element={<SignInPage />} />
      <Route
        element={
          <RequireAuth>
            <AppLayout />
          </RequireAuth>
        }
      >
        <Route path="/agent/:chatId?" element={<DataAgentPage />} />
      </Route>
      <Route path="*" element={<Navigate to="/agent" replace />} />
    </Routes>
  );
}

export interface AppProvidersProps {
  /** Default: one built for this app. Tests pass one over a fake fetch. */
  client?: ApiClient;
  /** Default: one built for this app (hooks/queries.ts). Tests pass their own. */
  queryClient?: QueryClient;
  children: ReactNode;
}

/** Everything but the router: theme, API client and query cache, session. */
export function AppProviders({ client, queryClient, children }: AppProvidersProps) {
  return (
    <ColorModeProvider>
      <ApiProvider client={client} queryClient={queryClient}>
        <AuthProvider>{children}</AuthProvider>
      </ApiProvider>
    </ColorModeProvider>
  );
}

export default function App() {
  return (
    <BrowserRouter>
      <AppProviders>
        <AppRoutes />
      </AppProviders>
    </BrowserRouter>
  );
}
