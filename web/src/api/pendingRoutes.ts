// TEMPORARY (issue 22): a route another branch adds to the server, typed here by hand
// until schema.ts is generated from a server that has it:
//
// - getMessage: GET /api/data-agent/chats/{chat_id}/messages/{message_id} (one message).
//
// When `npm run gen:api` brings one into schema.ts, this file stops compiling (below): remove
// that route here; once none is left, delete this file and `& PendingPaths` in client.ts.

import type { components, operations, paths } from './schema';

interface MessagePathParams {
  query?: never;
  header?: never;
  path: { chat_id: string; message_id: string };
  cookie?: never;
}

/** One message, in the envelope every route answers with. */
interface GetMessage {
  parameters: MessagePathParams;
  requestBody?: never;
  responses: Omit<operations['getChat']['responses'], 200> & {
    200: {
      headers: { [name: string]: unknown };
      content: { 'application/json': { data: components['schemas']['MessagePublic'] } };
    };
  };
}

export interface PendingPaths {
  '/api/data-agent/chats/{chat_id}/messages/{message_id}': {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: GetMessage;
  };
}

/** Compiles only while schema.ts lacks every route above (see the top of this file). */
export const PENDING_ROUTES_NOT_YET_GENERATED: [Extract<keyof paths, keyof PendingPaths>] extends [never]
  ? true
  : 'schema.ts has a route of PendingPaths now: remove it from pendingRoutes.ts' = true;
