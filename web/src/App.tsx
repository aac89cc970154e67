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

/** Everything but the router: theme, API client, session. */
export function AppProviders({ client, children }: { client?: ApiClient; children: ReactNode }) {
  return (
    <ColorModeProvider>
      <ApiProvider client={client}>
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
