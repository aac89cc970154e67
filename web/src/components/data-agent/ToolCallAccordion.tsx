import type { ToolCallView } from '../../types';

export interface ToolCallAccordionProps {
  toolCall: ToolCallView;
}

// STUB: replaced by the components helper.
export default function ToolCallAccordion({ toolCall }: ToolCallAccordionProps) {
  return <div>{toolCall.name}</div>;
}
