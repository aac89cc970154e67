// The one HTTP client of the page: openapi-fetch typed by the generated schema (schema.ts),
// with the session cookie, a 401 watcher, and the API's error body turned into ApiError.

import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { components, paths } from './schema';

export type Schemas = components['schemas'];
export type Http = Client<paths>;

/** An error answer of the API (`{"error": {code, message, details}}`), or no answer at all. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: unknown;

  constructor(status: number, code: string, message: string, details?: unknown) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

export const NETWORK_ERROR_MESSAGE = 'Could not reach the server; check your connection and try again.';

export interface ApiClient {
  /** Typed calls: `api.http.GET('/api/auth/me')`. */
  http: Http;
  /** Called on any 401 but the sign-in's own; returns the unsubscribe function. */
  onUnauthorized(listener: () => void): () => void;
}

export interface ApiClientOptions {
  /** The network boundary; tests pass a fake. Defaults to the global fetch at call time. */
  fetch?: (request: Request) => Promise<Response>;
  /** Defaults to this page's origin (relative URLs are not valid outside a browser). */
  baseUrl?: string;
}

/** Paths whose 401 is an answer, not a lost session. */
const UNAUTHORIZED_IS_AN_ANSWER = new Set(['/api/auth/login']);

/** Builds the client; one per page (ApiProvider), never a module global. */
export function createApiClient(options: ApiClientOptions = {}): ApiClient {
  const doFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const baseUrl = options.baseUrl ?? globalThis.location?.origin ?? '';
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of [...listeners]) listener();
  };

  const http = createClient<paths>({ baseUrl, credentials: 'same-origin', fetch: doFetch });
  const watch401: Middleware = {
    onResponse({ response, schemaPath }) {
      if (response.status === 401 && !UNAUTHORIZED_IS_AN_ANSWER.has(schemaPath)) notify();
      return undefined;
    },
  };
  http.use(watch401);

  return {
    http,
    onUnauthorized(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}

type CallResult<D> =
  | { data: D; error?: never; response: Response }
  | { data?: never; error: unknown; response: Response };

/** Awaits a typed call and returns its `data` envelope's content, or throws ApiError. */
export async function unwrap<T>(call: Promise<CallResult<{ data: T }>>): Promise<T> {
  const result = await settle(call);
  if (!result.response.ok || result.data === undefined) {
    throw toApiError(result.response, result.error);
  }
  return result.data.data;
}

/** Awaits a typed call that answers without a body (204, 202); throws ApiError on failure. */
export async function expectOk(call: Promise<CallResult<unknown>>): Promise<void> {
  const result = await settle(call);
  if (!result.response.ok) throw toApiError(result.response, result.error);
}

async function settle<D>(call: Promise<CallResult<D>>): Promise<CallResult<D>> {
  try {
    return await call;
  } catch (error) {
    throw networkError(error);
  }
}

function networkError(error: unknown): unknown {
  if (isAbortError(error)) return error;
  return new ApiError(0, 'NETWORK_ERROR', NETWORK_ERROR_MESSAGE);
}

/** The API's error body as an ApiError; a sentence from the status when there is none. */
export function toApiError(response: Response, body: unknown): ApiError {
  const detail = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | null)
    ?.error;
  if (detail && typeof detail.message === 'string') {
    const code = typeof detail.code === 'string' ? detail.code : `HTTP_${response.status}`;
    return new ApiError(response.status, code, detail.message, detail.details);
  }
  const status = `${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  return new ApiError(response.status, `HTTP_${response.status}`, `The server answered ${status}.`);
}

export function isAbortError(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    'name' in error &&
    (error as { name: unknown }).name === 'AbortError'
  );
}

/** A sentence for any thrown value: the API's message, or a generic one. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error && error.message) return error.message;
  return 'Something went wrong.';
}
