import { ApiError, unwrap } from '../api/client';
import type { OntologySummary } from '../types';
import { useApiResource } from './useApiResource';

/** The caller's ontologies (GET /api/ontologies); none when the role may not read them. */
export function useOntologies() {
  const resource = useApiResource<OntologySummary[]>('ontologies', async (api, signal) => {
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
  });
  return { ...resource, ontologies: resource.data ?? [] };
}
