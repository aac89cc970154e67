import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { createContext, useContext, useState, type ReactNode } from 'react';
import { createQueryClient } from '../hooks/queries';
import { createApiClient, type ApiClient } from './client';

const ApiContext = createContext<ApiClient | null>(null);

export interface ApiProviderProps {
  /** The API client; tests pass one built over a fake fetch. Default: one for this page. */
  client?: ApiClient;
  /** The query cache; tests pass their own. Default: one for this provider. */
  queryClient?: QueryClient;
  children: ReactNode;
}

/** Gives the page its API client and its query cache (one each per app, never module globals). */
export function ApiProvider({ client, queryClient, children }: ApiProviderProps) {
  const [ownClient] = useState(() => client ?? createApiClient());
  const [ownQueries] = useState(() => queryClient ?? createQueryClient());
  return (
    <ApiContext.Provider value={client ?? ownClient}>
      <QueryClientProvider client={queryClient ?? ownQueries}>{children}</QueryClientProvider>
    </ApiContext.Provider>
  );
}

/** The page's API client (inside ApiProvider). */
export function useApi(): ApiClient {
  const api = useContext(ApiContext);
  if (!api) throw new Error('useApi() needs an <ApiProvider> above it.');
  return api;
}
