import { createContext, useContext, useState, type ReactNode } from 'react';
import { createApiClient, type ApiClient } from './client';

const ApiContext = createContext<ApiClient | null>(null);

/** Gives the page its API client; tests pass one built over a fake fetch. */
export function ApiProvider({ client, children }: { client?: ApiClient; children: ReactNode }) {
  const [own] = useState(() => client ?? createApiClient());
  return <ApiContext.Provider value={client ?? own}>{children}</ApiContext.Provider>;
}

/** The page's API client (inside ApiProvider). */
export function useApi(): ApiClient {
  const api = useContext(ApiContext);
  if (!api) throw new Error('useApi() needs an <ApiProvider> above it.');
  return api;
}
