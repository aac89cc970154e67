export interface ChatInputProps {
  onSend: (text: string) => void;
  onStop: () => void;
  /** An answer is being written: the box is disabled and Send becomes Stop. */
  streaming: boolean;
  /** Cannot send at all (a viewer, no model): the box is disabled with this reason. */
  disabledReason?: string | null;
  /** Text to put in the box (a suggestion clicked); changes replace the box's text. */
  draft?: string;
}

// STUB: replaced by the components helper.
export default function ChatInput(props: ChatInputProps) {
  return <textarea aria-label="Message" disabled={props.streaming} />;
}
