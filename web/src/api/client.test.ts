import { ApiError, createApiClient, expectOk, NETWORK_ERROR_MESSAGE, unwrap } from './client';
import { errorResponse, fakeNetwork, jsonResponse } from './fakeFetch';

describe('the API client', () => {
  it('unwraps the data envelope', async () => {
    const net = fakeNetwork(() => jsonResponse(200, { data: { id: 'u1', email: 'ana@example.com' } }));
    const api = createApiClient({ fetch: net.fetch, baseUrl: 'http://test' });
    await expect(unwrap(api.http.GET('/api/auth/me'))).resolves.toMatchObject({ email: 'ana@example.com' });
    expect(net.requests[0].url).toBe('/api/auth/me');
  });

  it('throws the error body as ApiError', async () => {
    const net = fakeNetwork(() => errorResponse(404, 'NOT_FOUND', 'Chat not found.'));
    const api = createApiClient({ fetch: net.fetch, baseUrl: 'http://test' });
    const call = unwrap(api.http.GET('/api/data-agent/chats/{chat_id}', { params: { path: { chat_id: 'x' } } }));
    await expect(call).rejects.toEqual(new ApiError(404, 'NOT_FOUND', 'Chat not found.', null));
  });

  it('says so in a sentence when the server is unreachable or answers without a body', async () => {
    const down = createApiClient({
      fetch: () => Promise.reject(new TypeError('Failed to fetch')),
      baseUrl: 'http://test',
    });
    await expect(unwrap(down.http.GET('/api/auth/me'))).rejects.toMatchObject({ code: 'NETWORK_ERROR', message: NETWORK_ERROR_MESSAGE });
    const bare = createApiClient({ fetch: async () => new Response('oops', { status: 502, statusText: 'Bad Gateway' }), baseUrl: 'http://test' });
    await expect(expectOk(bare.http.POST('/api/auth/logout'))).rejects.toMatchObject({
      status: 502,
      message: 'The server answered 502 Bad Gateway.',
    });
  });

  it('tells its listeners about a 401, except the sign-in\'s own', async () => {
    const net = fakeNetwork(() => errorResponse(401, 'UNAUTHORIZED', 'Sign in first.'));
    const api = createApiClient({ fetch: net.fetch, baseUrl: 'http://test' });
    const listener = vi.fn();
    const off = api.onUnauthorized(listener);
    await expect(unwrap(api.http.POST('/api/auth/login', { body: { email: 'a@b.c', password: 'x' } }))).rejects.toBeInstanceOf(ApiError);
    expect(listener).not.toHaveBeenCalled();
    await expect(unwrap(api.http.GET('/api/ontologies'))).rejects.toMatchObject({ status: 401 });
    expect(listener).toHaveBeenCalledTimes(1);
    off();
    await unwrap(api.http.GET('/api/ontologies')).catch(() => undefined);
    expect(listener).toHaveBeenCalledTimes(1);
  });
});
