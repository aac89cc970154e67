import { useQuery } from '@tanstack/react-query';
import { useApi } from '../api/ApiContext';
import { ApiError, unwrap, type ApiClient } from '../api/client';
import type { ProviderView } from '../types';
import { queryKeys } from './queries';

export interface ProvidersInfo {
  /**
   * The enabled providers. `isDefault` marks the one a new chat of this person answers with
   * (their own default when enabled, else the system's), which the new-chat dialog names.
   */
  providers: ProviderView[];
  /** The person's default provider (null: the system's). */
  defaultProvider: string | null;
  /** The system default (null: none enabled). */
  systemDefault: string | null;
}

export const NO_PROVIDERS: ProvidersInfo = { providers: [], defaultProvider: null, systemDefault: null };

async function fetchProviders(api: ApiClient, signal: AbortSignal): Promise<ProvidersInfo> {
  try {
    const body = await unwrap(api.http.GET('/api/llm/providers', { signal }));
    const enabled = new Set(body.providers.map((p) => p.id as string));
    const effective =
      body.defaultProvider && enabled.has(body.defaultProvider) ? body.defaultProvider : body.systemDefault;
    return {
      providers: body.providers.map((p) => ({
        id: p.id,
        name: p.name,
        model: p.model,
        isDefault: effective ? p.id === effective : p.isDefault,
      })),
      defaultProvider: body.defaultProvider,
      systemDefault: body.systemDefault,
    };
  } catch (error) {
    if (error instanceof ApiError && error.status === 503) return NO_PROVIDERS;
    throw error;
  }
}

/**
 * The model providers (GET /api/llm/providers); none when the server has no model (503) or
 * they cannot be had. `info` is undefined only while loading.
 */
export function useProviders() {
  const api = useApi();
  const query = useQuery({
    queryKey: queryKeys.providers,
    queryFn: ({ signal }) => fetchProviders(api, signal),
  });
  return { info: query.data ?? (query.isError ? NO_PROVIDERS : undefined), loading: query.isPending };
}

/** "Provider · model" answering a chat: its own provider, else the person's, else the system's. */
export function modelLabelFor(chatProvider: string | null, info: ProvidersInfo | undefined): string | null {
  if (!info || info.providers.length === 0) return null;
  const find = (id: string | null) => {
    const wanted = id === 'openai_compatible' ? 'openai' : id;
    return wanted ? info.providers.find((p) => p.id === wanted) : undefined;
  };
  // A chat naming a provider that is not enabled is refused by the server: no model.
  const provider = chatProvider
    ? find(chatProvider)
    : (find(info.defaultProvider) ?? find(info.systemDefault) ?? info.providers.find((p) => p.isDefault));
  return provider ? `${provider.name} · ${provider.model}` : null;
}
