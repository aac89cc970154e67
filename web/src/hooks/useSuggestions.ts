import { useQuery } from '@tanstack/react-query';
import { useApi } from '../api/ApiContext';
import { unwrap, type ApiClient } from '../api/client';
import type { Suggestion } from '../types';
import { queryKeys } from './queries';

export const SUGGESTION_COUNT = 4;

async function fetchSuggestions(api: ApiClient, ontologyId: string, signal: AbortSignal): Promise<Suggestion[]> {
  return unwrap(
    api.http.GET('/api/ontologies/{ontology_id}/suggestions', {
      params: { path: { ontology_id: ontologyId }, query: { limit: SUGGESTION_COUNT } },
      signal,
    }),
  );
}

/**
 * Suggested questions drawn from an ontology; none while loading or when they cannot be
 * had: the cards are a help, never an error.
 */
export function useSuggestions(ontologyId: string | null): Suggestion[] {
  const api = useApi();
  const { data } = useQuery({
    queryKey: queryKeys.suggestions(ontologyId ?? ''),
    queryFn: ({ signal }) => fetchSuggestions(api, ontologyId ?? '', signal),
    enabled: ontologyId !== null,
    retry: false,
  });
  return data ?? [];
}
