// For tests: the whole app over a fake network (src/api/fakeFetch.ts), in a memory router,
// with a probe showing where it is. A small in-memory server answers the routes it uses.

import { render } from '@testing-library/react';
import { StrictMode } from 'react';
import { MemoryRouter, useLocation } from 'react-router';
import { AppProviders, AppRoutes } from '../App';
import { createApiClient } from '../api/client';
import { errorResponse, fakeNetwork, jsonResponse, type FakeRequest, type Handler } from '../api/fakeFetch';
import type { Schemas } from '../api/client';
import { createQueryClient } from '../hooks/queries';

export const T0 = '2026-01-01T10:00:00+00:00';

export function user(role: 'admin' | 'contributor' | 'viewer' = 'contributor'): Schemas['UserPublic'] {
  const permissions =
    role === 'viewer'
      ? ['data_agent:read', 'ontologies:read', 'connections:read', 'semantic_models:read']
      : ['data_agent:read', 'data_agent:write', 'data_agent:delete', 'ontologies:read', 'ontologies:write'];
  return { id: 'u1', email: 'ana@example.com', role, isActive: true, permissions, defaultOntologyId: null, createdAt: T0 };
}

export function chat(id: string, name: string, extra: Partial<Schemas['ChatPublic']> = {}): Schemas['ChatPublic'] {
  return {
    id,
    name,
    ontologyId: 'o1',
    ownerId: 'u1',
    llmProvider: null,
    agentMode: 'pipeline',
    createdAt: T0,
    updatedAt: T0,
    messageCount: 0,
    ontologyAccess: 'owner',
    ...extra,
  };
}

export function message(
  id: string,
  role: 'user' | 'assistant',
  content: string,
  status: Schemas['MessagePublic']['status'] = 'complete',
): Schemas['MessagePublic'] {
  return { id, chatId: 'c1', role, content, status, metadata: role === 'user' ? null : {}, createdAt: T0 };
}

export const ONTOLOGY: Schemas['OntologyPublic'] = {
  id: 'o1',
  name: 'Sales',
  description: null,
  status: 'ready',
  error: null,
  semanticModelId: 's1',
  datasetCount: 3,
  relationshipCount: 2,
  embeddingProvider: null,
  createdAt: T0,
  updatedAt: T0,
  access: 'owner',
  owner: { id: 'u1', email: 'ana@example.com' },
};

/** An ontology someone else owns, shared with the signed-in person. */
export function sharedOntology(id: string, name: string, ownerEmail: string): Schemas['OntologyPublic'] {
  return { ...ONTOLOGY, id, name, access: 'shared', owner: { id: `owner-of-${id}`, email: ownerEmail } };
}

export interface FakeServer {
  signedIn: boolean;
  role: 'admin' | 'contributor' | 'viewer';
  chats: Schemas['ChatPublic'][];
  messages: Record<string, Schemas['MessagePublic'][]>;
  /** What GET /api/ontologies answers; [ONTOLOGY] when not given. */
  ontologies?: Schemas['OntologyPublic'][];
  /** Answers for routes the defaults do not know, or to override them; undefined: default. */
  override?: (req: FakeRequest) => Response | Promise<Response> | undefined;
}

/** A handler for the routes the app calls, over `state`. */
export function fakeServer(state: FakeServer): Handler {
  return async (req) => {
    const overridden = await state.override?.(req);
    if (overridden) return overridden;
    const { method, path } = req;
    if (method === 'GET' && path === '/api/auth/session') {
      return jsonResponse(200, { data: { user: state.signedIn ? user(state.role) : null } });
    }
    if (method === 'POST' && path === '/api/auth/login') {
      const body = JSON.parse(req.body) as { email: string; password: string };
      if (body.password !== 'right-password') {
        return errorResponse(401, 'UNAUTHORIZED', 'Wrong email or password.');
      }
      state.signedIn = true;
      return jsonResponse(200, { data: { accessToken: 't', tokenType: 'bearer', expiresAt: T0, user: user(state.role) } });
    }
    if (method === 'POST' && path === '/api/auth/logout') {
      state.signedIn = false;
      return new Response(null, { status: 204 });
    }
    if (!state.signedIn) return errorResponse(401, 'UNAUTHORIZED', 'Sign in first.');
    if (method === 'GET' && path === '/api/data-agent/chats') {
      const query = new URL(req.url, 'http://test').searchParams;
      const page = Number(query.get('page') ?? 1);
      const pageSize = Number(query.get('pageSize') ?? 20);
      const items = state.chats.slice((page - 1) * pageSize, page * pageSize);
      const totalPages = Math.ceil(state.chats.length / pageSize);
      return jsonResponse(200, { data: { items, total: state.chats.length, page, pageSize, totalPages } });
    }
    const chatMatch = /^\/api\/data-agent\/chats\/([^/]+)$/.exec(path);
    if (method === 'GET' && chatMatch) {
      const found = state.chats.find((c) => c.id === chatMatch[1]);
      if (!found) return errorResponse(404, 'NOT_FOUND', 'Chat not found.');
      return jsonResponse(200, { data: { ...found, messages: state.messages[found.id] ?? [] } });
    }
    if (method === 'DELETE' && chatMatch) {
      state.chats = state.chats.filter((c) => c.id !== chatMatch[1]);
      return new Response(null, { status: 204 });
    }
    if (method === 'PATCH' && chatMatch) {
      const { name } = JSON.parse(req.body) as { name: string };
      state.chats = state.chats.map((c) => (c.id === chatMatch[1] ? { ...c, name } : c));
      const renamed = state.chats.find((c) => c.id === chatMatch[1]);
      return renamed ? jsonResponse(200, { data: renamed }) : errorResponse(404, 'NOT_FOUND', 'Chat not found.');
    }
    if (method === 'GET' && path === '/api/ontologies') return jsonResponse(200, { data: state.ontologies ?? [ONTOLOGY] });
    if (method === 'GET' && path === '/api/llm/providers') {
      return jsonResponse(200, {
        data: {
          providers: [{ id: 'openai', name: 'OpenAI', model: 'gpt-4o-mini', reasoningLevel: null, isDefault: true }],
          defaultProvider: null,
          systemDefault: 'openai',
        },
      });
    }
    if (method === 'GET' && path.endsWith('/suggestions')) {
      return jsonResponse(200, {
        data: [{ title: 'Top 10 customers by revenue', description: 'Ranks customers', prompt: 'Top 10 customers by revenue' }],
      });
    }
    return errorResponse(404, 'NOT_FOUND', `No fake route for ${method} ${path}.`);
  };
}

/** Where the app is (path + search); its history state as JSON in `data-state`. */
export function LocationProbe() {
  const location = useLocation();
  return (
    <output data-testid="location" data-state={JSON.stringify(location.state ?? null)}>
      {location.pathname + location.search}
    </output>
  );
}

/** A query cache for one test: no retries (an error shows at once), no garbage-collection timers. */
export function testQueryClient() {
  const queryClient = createQueryClient({ retry: false });
  queryClient.setDefaultOptions({
    ...queryClient.getDefaultOptions(),
    queries: { ...queryClient.getDefaultOptions().queries, gcTime: Infinity },
  });
  return queryClient;
}

/** Renders the app at `path` over `handler`; returns the network for assertions. */
export function renderApp(path: string, handler: Handler, { strict = false }: { strict?: boolean } = {}) {
  const network = fakeNetwork(handler);
  const client = createApiClient({ fetch: network.fetch, baseUrl: 'http://test' });
  const queryClient = testQueryClient();
  const app = (
    <MemoryRouter initialEntries={[path]}>
      <AppProviders client={client} queryClient={queryClient}>
        <AppRoutes />
        <LocationProbe />
      </AppProviders>
    </MemoryRouter>
  );
  // StrictMode (as main.tsx has it) runs every effect twice: streams must start idempotently.
  const view = render(strict ? <StrictMode>{app}</StrictMode> : app);
  return { network, client, queryClient, ...view };
}
