import type { ChatMessageView } from '../../types';

export interface ChatMessageProps {
  message: ChatMessageView;
}

// STUB: replaced by the components helper.
export default function ChatMessage({ message }: ChatMessageProps) {
  return <div>{message.content}</div>;
}
