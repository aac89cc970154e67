import { ApiError } from '../api/client';
import { createQueryClient, isClientError, STALE_TIME_MS } from './queries';

describe('createQueryClient', () => {
  it('retries a lost connection or a 5xx twice, never a 4xx', () => {
    const retry = createQueryClient().getDefaultOptions().queries?.retry as (n: number, e: unknown) => boolean;
    expect(retry(0, new ApiError(0, 'NETWORK_ERROR', 'x'))).toBe(true);
    expect(retry(1, new ApiError(503, 'UNAVAILABLE', 'x'))).toBe(true);
    expect(retry(2, new ApiError(500, 'INTERNAL_ERROR', 'x'))).toBe(false);
    for (const status of [400, 401, 403, 404, 409, 429]) {
      expect(retry(0, new ApiError(status, 'X', 'x'))).toBe(false);
    }
  });

  it('does not retry at all when told so (tests)', () => {
    const retry = createQueryClient({ retry: false }).getDefaultOptions().queries?.retry as (n: number, e: unknown) => boolean;
    expect(retry(0, new ApiError(0, 'NETWORK_ERROR', 'x'))).toBe(false);
  });

  it('keeps data fresh for 30 s and does not refetch on focus unless a query asks', () => {
    const queries = createQueryClient().getDefaultOptions().queries;
    expect(queries?.staleTime).toBe(STALE_TIME_MS);
    expect(queries?.refetchOnWindowFocus).toBe(false);
  });

  it('two apps never share a cache', () => {
    expect(createQueryClient()).not.toBe(createQueryClient());
    expect(isClientError(new ApiError(404, 'NOT_FOUND', 'x'))).toBe(true);
    expect(isClientError(new Error('x'))).toBe(false);
  });
});
