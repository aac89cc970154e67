import type { ChatSummary } from '../../types';

export interface ChatHeaderProps {
  chat: ChatSummary;
  ontologyName: string | null;
  /** "Provider · model" in use for this chat; null when no model is configured. */
  modelLabel: string | null;
  /** Shown below the `md` breakpoint: opens the chat list drawer. */
  onOpenSidebar?: () => void;
}

// STUB: replaced by the components helper.
export default function ChatHeader(props: ChatHeaderProps) {
  return <header>{props.chat.name}</header>;
}
