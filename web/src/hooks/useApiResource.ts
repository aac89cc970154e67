import { useEffect, useRef, useState } from 'react';
import { useApi } from '../api/ApiContext';
import { ApiError, isAbortError, NETWORK_ERROR_MESSAGE, type ApiClient } from '../api/client';

export interface Resource<T> {
  /** The last value loaded for this key (kept while reloading it). */
  data: T | undefined;
  error: ApiError | null;
  loading: boolean;
  reload: () => void;
}

interface Loaded<T> {
  key: string;
  version: number;
  data: T | undefined;
  error: ApiError | null;
}

/** Loads `load(api)` for `key` (null: nothing to load), again when the key changes or on reload. */
export function useApiResource<T>(
  key: string | null,
  load: (api: ApiClient, signal: AbortSignal) => Promise<T>,
): Resource<T> {
  const api = useApi();
  const loader = useRef(load);
  useEffect(() => {
    loader.current = load;
  });
  const [version, setVersion] = useState(0);
  const [loaded, setLoaded] = useState<Loaded<T> | null>(null);

  useEffect(() => {
    if (key === null) return;
    const controller = new AbortController();
    loader.current(api, controller.signal).then(
      (data) => {
        if (!controller.signal.aborted) setLoaded({ key, version, data, error: null });
      },
      (error: unknown) => {
        if (controller.signal.aborted || isAbortError(error)) return;
        const apiError = error instanceof ApiError ? error : new ApiError(0, 'NETWORK_ERROR', NETWORK_ERROR_MESSAGE);
        setLoaded({ key, version, data: undefined, error: apiError });
      },
    );
    return () => controller.abort();
  }, [api, key, version]);

  const current = key !== null && loaded?.key === key ? loaded : null;
  return {
    data: current?.data,
    error: current?.error ?? null,
    loading: key !== null && (current === null || current.version !== version),
    reload: () => setVersion((v) => v + 1),
  };
}
