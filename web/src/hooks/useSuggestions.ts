import type { Suggestion } from '../types';
import { useApiResource } from './useApiResource';

export const SUGGESTION_COUNT = 4;

/**
 * Suggested questions drawn from an ontology (GET /api/ontologies/{id}/suggestions); none
 * while loading or when they cannot be had: the cards are a help, never an error.
 */
export function useSuggestions(ontologyId: string | null): Suggestion[] {
  const { data } = useApiResource<Suggestion[]>(ontologyId ? `suggestions:${ontologyId}` : null, async (api, signal) => {
    if (!ontologyId) return [];
    try {
      // Not in the generated schema yet (added alongside this page): a plain typed GET.
      const path = `/api/ontologies/${encodeURIComponent(ontologyId)}/suggestions?limit=${SUGGESTION_COUNT}`;
      const items = await api.getJson<Suggestion[]>(path, { signal });
      return Array.isArray(items) ? items.filter(isSuggestion) : [];
    } catch (error) {
      if (signal.aborted) throw error;
      return [];
    }
  });
  return data ?? [];
}

function isSuggestion(value: unknown): value is Suggestion {
  const s = value as Suggestion;
  return typeof s?.title === 'string' && typeof s.prompt === 'string' && typeof s.description === 'string';
}
