import type { OntologySummary, ProviderView } from '../../types';

export interface NewChatInput {
  ontologyId: string;
  name?: string;
  llmProvider?: string;
}

export interface NewChatDialogProps {
  open: boolean;
  ontologies: OntologySummary[];
  providers: ProviderView[];
  onClose: () => void;
  onCreate: (input: NewChatInput) => void | Promise<void>;
  /** A sentence to show when creating failed. */
  error?: string | null;
}

// STUB: replaced by the components helper.
export default function NewChatDialog(props: NewChatDialogProps) {
  return props.open ? <div role="dialog">New chat</div> : null;
}
