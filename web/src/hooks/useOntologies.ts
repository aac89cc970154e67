import { useQuery } from '@tanstack/react-query';
import { useApi } from '../api/ApiContext';
import { ApiError, unwrap, type ApiClient } from '../api/client';
import type { OntologySummary } from '../types';
import { queryKeys } from './queries';

async function fetchOntologies(api: ApiClient, signal: AbortSignal): Promise<OntologySummary[]> {
  try {
    const ontologies = await unwrap(api.http.GET('/api/ontologies', { signal }));
    return ownFirst(
      ontologies.map((o) => ({
        id: o.id,
        name: o.name,
        description: o.description,
        status: o.status,
        datasetCount: o.datasetCount,
        access: o.access,
        ownerEmail: o.owner.email,
      })),
    );
  } catch (error) {
    if (error instanceof ApiError && error.status === 403) return [];
    throw error;
  }
}

/** The person's own ontologies, then those shared with them; each group in the server's order. */
export function ownFirst(ontologies: OntologySummary[]): OntologySummary[] {
  return [...ontologies.filter((o) => o.access === 'owner'), ...ontologies.filter((o) => o.access !== 'owner')];
}

/**
 * The ontologies the caller may ask about (GET /api/ontologies): their own first, then those
 * shared with them; none when the role may not read them.
 */
export function useOntologies() {
  const api = useApi();
  const query = useQuery({
    queryKey: queryKeys.ontologies,
    queryFn: ({ signal }) => fetchOntologies(api, signal),
  });
  return { ontologies: query.data ?? [], loading: query.isPending, error: query.error };
}
