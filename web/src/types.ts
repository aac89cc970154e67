// The page's own view of chats and messages: what the components draw. The hooks turn
// the API's objects (src/api/schema.ts) and the answer's events into these.

export type MessageStatus = 'generating' | 'complete' | 'failed' | 'clarification_needed';

export interface ToolCallView {
  id: string;
  name: string;
  args: Record<string, unknown>;
  /** What the tool returned (markdown for the SQL tools); undefined while it runs. */
  result?: string;
  isError?: boolean;
  durationMs?: number;
}

export interface ChartView {
  id: string;
  url: string;
  title: string;
}

export interface TokenCounts {
  prompt: number;
  completion: number;
  total: number;
}

export interface ChatMessageView {
  id: string;
  chatId: string;
  role: 'user' | 'assistant';
  /** Markdown: the question, or the answer so far. */
  content: string;
  status: MessageStatus;
  createdAt: string;
  /** The model's words before it called tools (one entry per such turn). */
  reasoning: string[];
  toolCalls: ToolCallView[];
  charts: ChartView[];
  error?: { code: string; message: string };
  tokensUsed?: TokenCounts;
  durationMs?: number;
}

export interface ChatSummary {
  id: string;
  name: string;
  ontologyId: string;
  llmProvider: string | null;
  /** How the chat answers: `pipeline`, `react`, or `offline` (the built-in planner, no model). */
  agentMode: AgentMode;
  createdAt: string;
  updatedAt: string;
  messageCount: number;
  /**
   * How the signed-in person reaches the chat's ontology: their own, shared with them, or
   * `withdrawn` (no longer shared: the chat stays readable, nothing more is asked in it).
   */
  ontologyAccess: ChatOntologyAccess;
}

export type ChatOntologyAccess = 'owner' | 'shared' | 'withdrawn';

export type AgentMode = 'pipeline' | 'react' | 'offline';

export interface OntologySummary {
  id: string;
  name: string;
  description: string | null;
  status: string;
  datasetCount: number;
  /** `owner`: the person's own; `shared`: shared with them (to ask about, nothing else). */
  access: 'owner' | 'shared';
  /** Whose it is: shown as "Shared by …" for a shared one. */
  ownerEmail: string;
}

export interface ProviderView {
  id: string;
  name: string;
  model: string;
  isDefault: boolean;
}

export interface Suggestion {
  title: string;
  description: string;
  prompt: string;
}

export interface CurrentUser {
  id: string;
  email: string;
  role: string;
  permissions: string[];
}
