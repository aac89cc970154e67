import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import { useState, type ReactNode } from 'react';
import { flushSync } from 'react-dom';
import { Link as RouterLink } from 'react-router';
import { WITHDRAWN_MESSAGE, WITHDRAWN_REASON } from '../components/data-agent/accessLabels';
import ChatHeader from '../components/data-agent/ChatHeader';
import ChatInput from '../components/data-agent/ChatInput';
import WelcomeScreen from '../components/data-agent/WelcomeScreen';
import ChatListButton from '../components/layout/ChatListButton';
import { useDataChat } from '../hooks/useDataChat';
import { modelLabelFor, type ProvidersInfo } from '../hooks/useProviders';
import { useSuggestions } from '../hooks/useSuggestions';
import type { OntologySummary } from '../types';
import MessageList from './MessageList';

export const NOT_FOUND_MESSAGE = 'This chat does not exist or is not yours.';

export interface ChatViewProps {
  chatId: string;
  ontologies: OntologySummary[];
  providers: ProvidersInfo | undefined;
  canWrite: boolean;
  role: string;
  /** Below `md`: opens the chat list drawer. */
  onOpenSidebar?: () => void;
  onError: (message: string) => void;
  /** The answer to claim on load (see useDataChat); read when the view mounts. */
  claimMessageId?: string | null;
}

/** Why the input is disabled for this person, if it is. */
export function disabledReasonFor(canWrite: boolean, role: string, withdrawn = false): string | null {
  if (withdrawn) return WITHDRAWN_REASON;
  return canWrite ? null : `Your role (${role}) can read chats but not ask questions.`;
}

/**
 * One chat: its header, the messages (or suggestions while empty) and the input. A chat whose
 * ontology is no longer shared with the person is read-only: an alert above the disabled
 * input says why, and no answer is offered to be asked again.
 */
export default function ChatView(props: ChatViewProps) {
  const { chatId, canWrite, onError, onOpenSidebar, claimMessageId } = props;
  const data = useDataChat(chatId, { canWrite, onError, claimMessageId });
  const [draft, setDraft] = useState('');
  // ChatInput takes a new draft when it differs from the last: the same text again (a
  // suggestion clicked twice, a refused question given back twice) goes by "" first.
  const fillDraft = (text: string) => {
    if (text === draft) flushSync(() => setDraft(''));
    setDraft(text);
  };
  const chat = data.chat;
  const withdrawn = chat?.ontologyAccess === 'withdrawn';
  const empty = data.status === 'ready' && data.messages.length === 0;
  // A withdrawn ontology's suggestions would be a 404: not asked for.
  const suggestions = useSuggestions(empty && chat && !withdrawn ? chat.ontologyId : null);
  const disabledReason = disabledReasonFor(canWrite, props.role, withdrawn);

  if (data.status === 'loading' || (data.status === 'ready' && !chat)) {
    return (
      <Centered onOpenSidebar={onOpenSidebar}>
        <CircularProgress aria-label="Loading chat" />
      </Centered>
    );
  }
  if (data.status === 'notFound' || data.status === 'error' || !chat) {
    const notFound = data.status === 'notFound';
    return (
      <Centered onOpenSidebar={onOpenSidebar}>
        <Alert
          severity={notFound ? 'warning' : 'error'}
          sx={{ maxWidth: 560 }}
          action={
            notFound ? (
              <Button color="inherit" size="small" component={RouterLink} to="/agent">
                Back to chats
              </Button>
            ) : (
              <Button color="inherit" size="small" onClick={data.reload}>
                Retry
              </Button>
            )
          }
        >
          {notFound ? NOT_FOUND_MESSAGE : data.error}
        </Alert>
      </Centered>
    );
  }

  const ontology = props.ontologies.find((o) => o.id === chat.ontologyId);
  const ontologyName = ontology?.name ?? null;
  const askAgain = (messageId: string) => void data.regenerate(messageId);
  const onSuggestion = (prompt: string) => {
    if (disabledReason || data.isStreaming) fillDraft(prompt);
    else void data.send(prompt);
  };

  return (
    <Box sx={{ flex: 1, minWidth: 0, display: 'flex', flexDirection: 'column' }}>
      <ChatHeader
        chat={chat}
        ontologyName={ontologyName}
        sharedBy={ontology?.access === 'shared' ? ontology.ownerEmail : null}
        modelLabel={modelLabelFor(chat.llmProvider, props.providers)}
        onOpenSidebar={onOpenSidebar}
      />
      {empty && !withdrawn ? (
        <Box sx={{ flex: 1, minHeight: 0, overflowY: 'auto', display: 'flex' }}>
          <WelcomeScreen
            ontologyName={ontologyName}
            suggestions={suggestions}
            onSuggestion={onSuggestion}
            canWrite={canWrite}
          />
        </Box>
      ) : (
        <MessageList
          messages={data.messages}
          streaming={data.isStreaming}
          onAskAgain={canWrite && !withdrawn ? askAgain : undefined}
        />
      )}
      <Box sx={{ borderTop: 1, borderColor: 'divider', px: { xs: 1.5, sm: 3 }, py: 1.5 }}>
        <Box sx={{ maxWidth: 960, mx: 'auto' }}>
          {withdrawn && (
            <Alert severity="warning" sx={{ mb: 1.5 }}>
              {WITHDRAWN_MESSAGE}
            </Alert>
          )}
          <ChatInput
            onSend={(text) => {
              // Not stored (the server refused, or was unreachable): give the text back.
              void data.send(text).then((sent) => {
                if (!sent) fillDraft(text);
              });
            }}
            onStop={data.stop}
            streaming={data.isStreaming}
            disabledReason={disabledReason}
            canStop={canWrite}
            draft={draft}
          />
        </Box>
      </Box>
    </Box>
  );
}

function Centered({ children, onOpenSidebar }: { children: ReactNode; onOpenSidebar?: () => void }) {
  return (
    <Box sx={{ flex: 1, minWidth: 0, display: 'flex', flexDirection: 'column' }}>
      {onOpenSidebar && (
        <Box sx={{ px: 1, py: 0.5, borderBottom: 1, borderColor: 'divider' }}>
          <ChatListButton onClick={onOpenSidebar} />
        </Box>
      )}
      <Box sx={{ flex: 1, display: 'flex', alignItems: 'center', justifyContent: 'center', p: 3 }}>{children}</Box>
    </Box>
  );
}
