import type { ChatSummary } from '../../types';

export interface ChatSidebarProps {
  chats: ChatSummary[];
  currentChatId: string | null;
  search: string;
  onSearchChange: (search: string) => void;
  onNewChat: () => void;
  onSelectChat: (id: string) => void;
  onRenameChat: (id: string, name: string) => void | Promise<void>;
  onDeleteChat: (id: string) => void | Promise<void>;
  /** Permissions: data_agent:write (new chat, rename) and data_agent:delete. */
  canWrite: boolean;
  canDelete: boolean;
  loading?: boolean;
  /** For grouping; tests pass a fixed time. */
  now?: Date;
}

// STUB: replaced by the components helper.
export default function ChatSidebar(props: ChatSidebarProps) {
  return <nav aria-label="Chats">{props.chats.length}</nav>;
}
