import { useQuery } from '@tanstack/react-query';
import { useApi } from '../api/ApiContext';
import type { ApiClient } from '../api/client';
import type { Suggestion } from '../types';
import { queryKeys } from './queries';

export const SUGGESTION_COUNT = 4;

// TODO(lead): generated types once the route lands (GET /api/ontologies/{id}/suggestions,
// operationId likely `ontologySuggestions`): replace this call by
// `unwrap(api.http.GET('/api/ontologies/{ontology_id}/suggestions', {params: {path, query: {limit}}, signal}))`
// and drop ApiClient.getJson. The one hand-typed call to our own API, kept here alone.
async function fetchSuggestions(api: ApiClient, ontologyId: string, signal: AbortSignal): Promise<Suggestion[]> {
  const path = `/api/ontologies/${encodeURIComponent(ontologyId)}/suggestions?limit=${SUGGESTION_COUNT}`;
  const items = await api.getJson<Suggestion[]>(path, { signal });
  return Array.isArray(items) ? items.filter(isSuggestion) : [];
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

function isSuggestion(value: unknown): value is Suggestion {
  const s = value as Suggestion;
  return typeof s?.title === 'string' && typeof s.prompt === 'string' && typeof s.description === 'string';
}
