import type { Suggestion } from '../../types';

export interface WelcomeScreenProps {
  /** Shown above the suggestions: the chat's ontology, or none on the no-chat screen. */
  ontologyName?: string | null;
  suggestions: Suggestion[];
  onSuggestion: (prompt: string) => void;
  /** On the no-chat screen: the New chat button; absent inside an empty chat. */
  onNewChat?: () => void;
  canWrite: boolean;
}

// STUB: replaced by the components helper.
export default function WelcomeScreen(props: WelcomeScreenProps) {
  return <div>{props.suggestions.length}</div>;
}
