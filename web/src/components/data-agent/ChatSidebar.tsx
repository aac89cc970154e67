import { useEffect, useId, useMemo, useRef, useState, type RefObject } from 'react';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import IconButton from '@mui/material/IconButton';
import InputAdornment from '@mui/material/InputAdornment';
import LinearProgress from '@mui/material/LinearProgress';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemButton from '@mui/material/ListItemButton';
import ListItemText from '@mui/material/ListItemText';
import ListSubheader from '@mui/material/ListSubheader';
import TextField from '@mui/material/TextField';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import AddIcon from '@mui/icons-material/Add';
import ClearIcon from '@mui/icons-material/Clear';
import DeleteOutlinedIcon from '@mui/icons-material/DeleteOutlined';
import EditOutlinedIcon from '@mui/icons-material/EditOutlined';
import GroupOutlinedIcon from '@mui/icons-material/GroupOutlined';
import LinkOffOutlinedIcon from '@mui/icons-material/LinkOffOutlined';
import SearchIcon from '@mui/icons-material/Search';
import type { ChatSummary } from '../../types';
import ConfirmDialog from '../common/ConfirmDialog';
import RenameDialog from '../common/RenameDialog';
import { SHARED_MARKER, WITHDRAWN_MARKER } from './accessLabels';
import { groupChatsByDate, truncateName } from './groupChats';

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
  /** A sentence when the list could not be loaded. */
  error?: string | null;
  /** The list goes on past the chats given: "Load more chats" (also when scrolled into view). */
  hasMore?: boolean;
  loadingMore?: boolean;
  onLoadMore?: () => void;
}

export const SIDEBAR_WIDTH = 280;

/**
 * The chat list: New chat, search, chats grouped by date with rename and delete (which
 * asks first). The parent does the searching (the server's `search`); this shows what it
 * is given.
 */
export default function ChatSidebar({
  chats,
  currentChatId,
  search,
  onSearchChange,
  onNewChat,
  onSelectChat,
  onRenameChat,
  onDeleteChat,
  canWrite,
  canDelete,
  loading = false,
  now,
  error,
  hasMore = false,
  loadingMore = false,
  onLoadMore,
}: ChatSidebarProps) {
  const groups = useMemo(() => groupChatsByDate(chats, now ?? new Date()), [chats, now]);
  const [renaming, setRenaming] = useState<ChatSummary | null>(null);
  // The chat being deleted stays set while the dialog fades out (its text must not blank).
  const [deleting, setDeleting] = useState<ChatSummary | null>(null);
  const [deleteOpen, setDeleteOpen] = useState(false);
  const idBase = useId();

  const searching = search.trim().length > 0;
  const scroller = useRef<HTMLDivElement>(null);
  const more = useRef<HTMLButtonElement>(null);
  const showMore = hasMore && chats.length > 0 && onLoadMore !== undefined;
  useLoadWhenSeen(showMore && !loadingMore ? onLoadMore : undefined, more, scroller);

  return (
    <Box
      component="nav"
      aria-label="Chats"
      sx={{
        width: SIDEBAR_WIDTH,
        flexShrink: 0,
        height: '100%',
        minHeight: 0,
        display: 'flex',
        flexDirection: 'column',
        bgcolor: 'background.paper',
        borderRight: 1,
        borderColor: 'divider',
      }}
    >
      <Box sx={{ p: 1.5, display: 'flex', flexDirection: 'column', gap: 1.5 }}>
        {canWrite && (
          <Button variant="contained" startIcon={<AddIcon />} onClick={onNewChat} fullWidth>
            New chat
          </Button>
        )}
        <TextField
          size="small"
          placeholder="Search chats"
          value={search}
          onChange={(e) => onSearchChange(e.target.value)}
          fullWidth
          slotProps={{
            htmlInput: { 'aria-label': 'Search chats' },
            input: {
              startAdornment: (
                <InputAdornment position="start">
                  <SearchIcon fontSize="small" />
                </InputAdornment>
              ),
              endAdornment: search ? (
                <InputAdornment position="end">
                  <IconButton aria-label="Clear search" size="small" edge="end" onClick={() => onSearchChange('')}>
                    <ClearIcon fontSize="small" />
                  </IconButton>
                </InputAdornment>
              ) : undefined,
            },
          }}
        />
      </Box>

      <Box sx={{ height: 4 }}>{loading && chats.length > 0 && <LinearProgress aria-label="Loading chats" />}</Box>

      <Box ref={scroller} sx={{ flex: 1, minHeight: 0, overflowY: 'auto', pb: 1 }}>
        {error && (
          <Typography role="alert" variant="body2" color="error" sx={{ px: 2, py: 1 }}>
            {error}
          </Typography>
        )}
        {loading && chats.length === 0 ? (
          <Box sx={{ display: 'flex', justifyContent: 'center', py: 4 }}>
            <CircularProgress size={24} aria-label="Loading chats" />
          </Box>
        ) : chats.length === 0 ? (
          <Box sx={{ px: 2, py: 4, textAlign: 'center' }}>
            <Typography variant="body2" color="text.secondary">
              {searching ? 'No chats match' : 'No chats yet'}
            </Typography>
            {!searching && canWrite && (
              <Typography variant="caption" color="text.secondary">
                Start one with New chat.
              </Typography>
            )}
          </Box>
        ) : (
          groups.map((group) => {
            const headingId = `${idBase}-${group.key}`;
            return (
              <Box component="section" key={group.key} aria-labelledby={headingId}>
                <ListSubheader
                  component="h2"
                  id={headingId}
                  sx={{
                    m: 0,
                    lineHeight: '32px',
                    fontSize: '0.75rem',
                    fontWeight: 600,
                    color: 'text.secondary',
                    bgcolor: 'background.paper',
                  }}
                >
                  {group.label}
                </ListSubheader>
                <List dense disablePadding>
                  {group.chats.map((chat) => (
                    <ChatRow
                      key={chat.id}
                      chat={chat}
                      active={chat.id === currentChatId}
                      onSelect={() => onSelectChat(chat.id)}
                      onRename={canWrite ? () => setRenaming(chat) : undefined}
                      onDelete={
                        canDelete
                          ? () => {
                              setDeleting(chat);
                              setDeleteOpen(true);
                            }
                          : undefined
                      }
                    />
                  ))}
                </List>
              </Box>
            );
          })
        )}
        {showMore && (
          <Box sx={{ px: 1, pt: 1, display: 'flex', justifyContent: 'center' }}>
            <Button
              ref={more}
              size="small"
              onClick={onLoadMore}
              disabled={loadingMore}
              startIcon={loadingMore ? <CircularProgress size={14} color="inherit" /> : undefined}
            >
              {loadingMore ? 'Loading more chats…' : 'Load more chats'}
            </Button>
          </Box>
        )}
      </Box>

      <RenameDialog
        open={renaming !== null}
        title="Rename chat"
        initialName={renaming?.name ?? ''}
        onCancel={() => setRenaming(null)}
        onSave={async (name) => {
          if (!renaming) return;
          await onRenameChat(renaming.id, name);
          setRenaming(null);
        }}
      />
      <ConfirmDialog
        open={deleteOpen && deleting !== null}
        title="Delete chat?"
        confirmLabel="Delete"
        destructive
        onCancel={() => setDeleteOpen(false)}
        onConfirm={async () => {
          if (!deleting) return;
          await onDeleteChat(deleting.id);
          setDeleteOpen(false);
        }}
      >
        “{deleting?.name}” and all its messages will be deleted. This cannot be undone.
      </ConfirmDialog>
    </Box>
  );
}

/**
 * Calls `load` when `target` scrolls into view inside `root` (the list loads on as the person
 * scrolls to its end); nothing where the browser cannot tell (the button is still there).
 */
function useLoadWhenSeen(
  load: (() => void) | undefined,
  target: RefObject<HTMLElement | null>,
  root: RefObject<HTMLElement | null>,
) {
  useEffect(() => {
    const element = target.current;
    if (!load || !element || typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting)) load();
      },
      { root: root.current, rootMargin: '0px 0px 200px 0px' },
    );
    observer.observe(element);
    return () => observer.disconnect();
  }, [load, target, root]);
}

interface ChatRowProps {
  chat: ChatSummary;
  active: boolean;
  onSelect: () => void;
  onRename?: () => void;
  onDelete?: () => void;
}

function ChatRow({ chat, active, onSelect, onRename, onDelete }: ChatRowProps) {
  const actions =
    onRename || onDelete ? (
      <Box className="chat-actions" sx={{ display: 'flex', gap: 0.25 }}>
        {onRename && (
          <Tooltip title="Rename">
            <IconButton size="small" aria-label={`Rename chat ${chat.name}`} onClick={onRename}>
              <EditOutlinedIcon fontSize="small" />
            </IconButton>
          </Tooltip>
        )}
        {onDelete && (
          <Tooltip title="Delete">
            <IconButton size="small" aria-label={`Delete chat ${chat.name}`} onClick={onDelete}>
              <DeleteOutlinedIcon fontSize="small" />
            </IconButton>
          </Tooltip>
        )}
      </Box>
    ) : undefined;
  const actionCount = (onRename ? 1 : 0) + (onDelete ? 1 : 0);

  return (
    <ListItem
      disablePadding
      secondaryAction={actions}
      sx={{
        // The actions are always there for keyboard and touch users; a mouse sees them on hover.
        '& .chat-actions': { opacity: 0, transition: 'opacity 120ms' },
        '&:hover .chat-actions, &:focus-within .chat-actions': { opacity: 1 },
        '@media (hover: none)': { '& .chat-actions': { opacity: 1 } },
        '& .MuiListItemSecondaryAction-root': { right: 8 },
      }}
    >
      <ListItemButton
        selected={active}
        aria-current={active ? 'page' : undefined}
        title={chat.name}
        onClick={onSelect}
        sx={{
          mx: 1,
          borderRadius: 1,
          // Room for the actions when they show (each about 30px).
          pr: actionCount ? `${8 + actionCount * 30}px` : undefined,
        }}
      >
        <ListItemText
          primary={truncateName(chat.name)}
          slotProps={{ primary: { noWrap: true, variant: 'body2' } }}
        />
        <AccessMarker access={chat.ontologyAccess} />
      </ListItemButton>
    </ListItem>
  );
}

/** A small icon after a chat's name: on a shared ontology, or one no longer shared. */
function AccessMarker({ access }: { access: ChatSummary['ontologyAccess'] }) {
  if (access === 'owner') return null;
  const label = access === 'shared' ? SHARED_MARKER : WITHDRAWN_MARKER;
  const Icon = access === 'shared' ? GroupOutlinedIcon : LinkOffOutlinedIcon;
  return (
    <Tooltip title={label}>
      <Box
        component="span"
        role="img"
        aria-label={label}
        sx={{ display: 'inline-flex', flexShrink: 0, ml: 0.75, color: 'text.secondary' }}
      >
        <Icon fontSize="inherit" />
      </Box>
    </Tooltip>
  );
}
