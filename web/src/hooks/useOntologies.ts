import { useQuery } from '@tanstack/react-query';
import { useApi } from '../api/ApiContext';
import { ApiError, unwrap, type ApiClient } from '../api/client';
import type { OntologySummary } from '../types';
import { queryKeys } from './queries';

async function fetchOntologies(api: ApiClient, signal: AbortSignal): Promise<OntologySummary[]> {
  try {
    const ontologies = await unwrap(api.http.GET('/api/ontologies', { signal }));
    return ontologies.map((o) => ({
      id: o.id,
      name: o.name,
      description: o.description,
      status: o.status,
      datasetCount: o.datasetCount,
    }));
  } catch (error) {
    if (error instanceof ApiError && error.status === 403) return [];
    throw error;
  }
}

/** The caller's ontologies (GET /api/ontologies); none when the role may not read them. */
export function useOntologies() {
  const api = useApi();
  const query = useQuery({
    queryKey: queryKeys.ontologies,
    queryFn: ({ signal }) => fetchOntologies(api, signal),
  });
  return { ontologies: query.data ?? [], loading: query.isPending, error: query.error };
}
