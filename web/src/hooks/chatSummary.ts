import type { Schemas } from '../api/client';
import type { ChatSummary } from '../types';

/** The page's view of a chat (the API's, without the owner). */
export function toChatSummary(chat: Schemas['ChatPublic'] | Schemas['ChatWithMessages']): ChatSummary {
  return {
    id: chat.id,
    name: chat.name,
    ontologyId: chat.ontologyId,
    llmProvider: chat.llmProvider,
    agentMode: chat.agentMode,
    createdAt: chat.createdAt,
    updatedAt: chat.updatedAt,
    messageCount: chat.messageCount,
    ontologyAccess: chat.ontologyAccess,
  };
}
