import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Drawer from '@mui/material/Drawer';
import Snackbar from '@mui/material/Snackbar';
import { useTheme } from '@mui/material/styles';
import useMediaQuery from '@mui/material/useMediaQuery';
import { useEffect, useState } from 'react';
import { useLocation, useNavigate, useParams } from 'react-router';
import { errorMessage } from '../api/client';
import { PERMISSIONS, useAuth } from '../auth/AuthContext';
import ChatSidebar from '../components/data-agent/ChatSidebar';
import NewChatDialog, { type NewChatInput } from '../components/data-agent/NewChatDialog';
import WelcomeScreen from '../components/data-agent/WelcomeScreen';
import ChatListButton from '../components/layout/ChatListButton';
import { useSendMessage } from '../hooks/useChatMutations';
import { useDataAgent } from '../hooks/useDataAgent';
import { useOntologies } from '../hooks/useOntologies';
import { useProviders } from '../hooks/useProviders';
import { useSuggestions } from '../hooks/useSuggestions';
import { SIDEBAR_WIDTH } from '../theme';
import ChatView from './ChatView';

/** Navigation state: the chat page should claim this answer (it was just asked for). */
interface ClaimState {
  claim: string;
}

/** The data agent (seed 000): the chat list beside one chat, or the welcome screen. */
export default function DataAgentPage() {
  const { chatId } = useParams();
  const navigate = useNavigate();
  const location = useLocation();
  const { user, can } = useAuth();
  const canWrite = can(PERMISSIONS.chatWrite);
  const canDelete = can(PERMISSIONS.chatDelete);
  const theme = useTheme();
  const wide = useMediaQuery(theme.breakpoints.up('md'), { noSsr: true });

  const list = useDataAgent();
  const { mutateAsync: sendMessage } = useSendMessage();
  const { ontologies } = useOntologies();
  const { info: providers } = useProviders();
  const readyOntologies = ontologies.filter((o) => o.status === 'ready');
  const firstReady = readyOntologies[0] ?? null;
  const welcomeSuggestions = useSuggestions(!chatId && canWrite && firstReady ? firstReady.id : null);

  // The answer to claim, told by navigation state: read by the chat view as it mounts, then
  // cleared, so that a reload (history state survives it) attaches instead of claiming again.
  const claimMessageId = (location.state as ClaimState | null)?.claim ?? null;
  const here = location.pathname + location.search + location.hash;
  useEffect(() => {
    if (claimMessageId) void navigate(here, { replace: true, state: null });
  }, [claimMessageId, here, navigate]);

  const [drawerOpen, setDrawerOpen] = useState(false);
  const [newChatOpen, setNewChatOpen] = useState(false);
  const [createError, setCreateError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const openNewChat = () => {
    setDrawerOpen(false);
    setCreateError(null);
    setNewChatOpen(true);
  };

  const createChat = async (input: NewChatInput) => {
    setCreateError(null);
    try {
      const chat = await list.createChat(input);
      setNewChatOpen(false);
      navigate(`/agent/${chat.id}`);
    } catch (error) {
      setCreateError(errorMessage(error));
    }
  };

  const renameChat = async (id: string, name: string) => {
    try {
      await list.renameChat(id, name);
    } catch (error) {
      setNotice(errorMessage(error));
    }
  };

  const deleteChat = async (id: string) => {
    try {
      await list.deleteChat(id);
      if (id === chatId) navigate('/agent', { replace: true });
    } catch (error) {
      setNotice(errorMessage(error));
    }
  };

  // A suggestion on the no-chat screen: a chat on the first ready ontology, asked at once.
  // The question is stored here; the chat page claims its answer (told so by the state).
  const askInNewChat = async (prompt: string) => {
    if (!canWrite) return;
    if (!firstReady) {
      openNewChat();
      return;
    }
    try {
      const chat = await list.createChat({ ontologyId: firstReady.id });
      const pair = await sendMessage({ chatId: chat.id, content: prompt });
      const state: ClaimState = { claim: pair.assistantMessage.id };
      navigate(`/agent/${chat.id}`, { state });
    } catch (error) {
      setNotice(errorMessage(error));
    }
  };

  const sidebar = (
    <Box sx={{ width: SIDEBAR_WIDTH, height: '100%', display: 'flex', flexDirection: 'column', minHeight: 0 }}>
      {list.error && (
        <Alert severity="error" sx={{ m: 1 }}>
          {list.error}
        </Alert>
      )}
      <ChatSidebar
        chats={list.chats}
        currentChatId={chatId ?? null}
        search={list.search}
        onSearchChange={list.setSearch}
        onNewChat={openNewChat}
        onSelectChat={(id) => {
          setDrawerOpen(false);
          navigate(`/agent/${id}`);
        }}
        onRenameChat={renameChat}
        onDeleteChat={deleteChat}
        canWrite={canWrite}
        canDelete={canDelete}
        loading={list.loading}
        hasMore={list.hasMore}
        loadingMore={list.loadingMore}
        onLoadMore={list.loadMore}
      />
    </Box>
  );
  const openSidebar = wide ? undefined : () => setDrawerOpen(true);

  return (
    <Box sx={{ flex: 1, minWidth: 0, display: 'flex' }}>
      {wide ? (
        <Box sx={{ flexShrink: 0, borderRight: 1, borderColor: 'divider', bgcolor: 'background.paper' }}>{sidebar}</Box>
      ) : (
        <Drawer variant="temporary" open={drawerOpen} onClose={() => setDrawerOpen(false)}>
          {sidebar}
        </Drawer>
      )}

      {chatId ? (
        <ChatView
          key={chatId}
          chatId={chatId}
          ontologies={ontologies}
          providers={providers}
          canWrite={canWrite}
          role={user?.role ?? 'unknown'}
          onOpenSidebar={openSidebar}
          onError={setNotice}
          claimMessageId={claimMessageId}
        />
      ) : (
        <Box sx={{ flex: 1, minWidth: 0, display: 'flex', flexDirection: 'column' }}>
          {openSidebar && (
            <Box sx={{ px: 1, py: 0.5, borderBottom: 1, borderColor: 'divider' }}>
              <ChatListButton onClick={openSidebar} />
            </Box>
          )}
          <Box sx={{ flex: 1, minHeight: 0, overflowY: 'auto', display: 'flex' }}>
            <WelcomeScreen
              suggestions={welcomeSuggestions}
              onSuggestion={(prompt) => void askInNewChat(prompt)}
              onNewChat={openNewChat}
              canWrite={canWrite}
            />
          </Box>
        </Box>
      )}

      <NewChatDialog
        open={newChatOpen}
        ontologies={readyOntologies}
        providers={providers?.providers ?? []}
        onClose={() => setNewChatOpen(false)}
        onCreate={createChat}
        error={createError}
      />
      <Snackbar
        open={notice !== null}
        autoHideDuration={8000}
        onClose={(_, reason) => {
          if (reason !== 'clickaway') setNotice(null);
        }}
        anchorOrigin={{ vertical: 'bottom', horizontal: 'center' }}
      >
        <Alert severity="error" variant="filled" onClose={() => setNotice(null)} sx={{ width: '100%' }}>
          {notice}
        </Alert>
      </Snackbar>
    </Box>
  );
}
