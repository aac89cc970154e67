// TEMPORARY (issue 22): two routes that other branches add to the server, typed here by hand
// until schema.ts is generated from a server that has them:
//
// - getMessage: GET /api/data-agent/chats/{chat_id}/messages/{message_id} (one message);
// - regenerateMessage: POST .../messages/{message_id}/regenerate (no body; answers like
//   sendMessage: the question and the new answer's placeholder).
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

/** sendMessage's answer (201, MessagePair), without a body. */
interface RegenerateMessage {
  parameters: MessagePathParams;
  requestBody?: never;
  responses: operations['sendMessage']['responses'];
}

export interface PendingPaths {
  '/api/data-agent/chats/{chat_id}/messages/{message_id}': {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: GetMessage;
  };
  '/api/data-agent/chats/{chat_id}/messages/{message_id}/regenerate': {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    post: RegenerateMessage;
  };
}

/** Compiles only while schema.ts lacks every route above (see the top of this file). */
export const PENDING_ROUTES_NOT_YET_GENERATED: [Extract<keyof paths, keyof PendingPaths>] extends [never]
  ? true
  : 'schema.ts has a route of PendingPaths now: remove it from pendingRoutes.ts' = true;
