// What the page says about ontologies that are not the person's own: shared with them, or
// no longer shared (a chat on one stays readable, nothing more is asked in it).

/** Beside a shared ontology's name (the dialog's picker, the chat header). */
export function sharedByLabel(ownerEmail: string): string {
  return `Shared by ${ownerEmail}`;
}

/** The sidebar's markers (their tooltips and accessible names). */
export const SHARED_MARKER = 'Shared ontology';
export const WITHDRAWN_MARKER = 'Ontology no longer shared: read only';

/** Above the disabled input of a chat whose ontology was withdrawn (the server's sentence). */
export const WITHDRAWN_MESSAGE =
  "This chat's ontology is no longer shared with you: you can read the chat, but not ask in it. " +
  "Ask the ontology's owner to share it again.";

/** Under the disabled input of such a chat. */
export const WITHDRAWN_REASON = 'Sending is disabled: the ontology is no longer shared with you.';
