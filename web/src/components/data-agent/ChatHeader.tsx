import type { ReactNode } from 'react';
import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import IconButton from '@mui/material/IconButton';
import Typography from '@mui/material/Typography';
import GroupOutlinedIcon from '@mui/icons-material/GroupOutlined';
import MenuIcon from '@mui/icons-material/Menu';
import SmartToyOutlinedIcon from '@mui/icons-material/SmartToyOutlined';
import StorageIcon from '@mui/icons-material/Storage';
import type { ChatSummary } from '../../types';
import { sharedByLabel } from './accessLabels';

export interface ChatHeaderProps {
  chat: ChatSummary;
  ontologyName: string | null;
  /** The owner's email when the ontology is shared with the person, not their own. */
  sharedBy?: string | null;
  /** "Provider · model" in use for this chat; null when no model is configured (then the
   * built-in planner answers, as it does in an `offline` chat). */
  modelLabel: string | null;
  /** Shown below the `md` breakpoint: opens the chat list drawer. */
  onOpenSidebar?: () => void;
  /** Extra controls at the right end (e.g. a menu). */
  actions?: ReactNode;
}

export const BUILT_IN_PLANNER = 'Built-in planner (no model)';
const BUILT_IN_PLANNER_NO_MODEL =
  'No model is configured: answers come from the built-in planner, which answers questions the ' +
  'semantic model makes unambiguous.';
const BUILT_IN_PLANNER_CHOSEN =
  'This chat answers with the built-in planner and makes no model calls.';

/** The chat's name, its ontology (and whose, when shared) and the model answering (or the built-in planner). */
export default function ChatHeader({ chat, ontologyName, sharedBy, modelLabel, onOpenSidebar, actions }: ChatHeaderProps) {
  return (
    <Box
      component="header"
      sx={{
        display: 'flex',
        alignItems: 'center',
        gap: 1,
        px: { xs: 1, sm: 2 },
        py: 1,
        minHeight: 56,
        borderBottom: 1,
        borderColor: 'divider',
        bgcolor: 'background.paper',
        minWidth: 0,
      }}
    >
      {onOpenSidebar && (
        <IconButton
          aria-label="Open chat list"
          onClick={onOpenSidebar}
          edge="start"
          sx={{ display: { xs: 'inline-flex', md: 'none' } }}
        >
          <MenuIcon />
        </IconButton>
      )}
      <Box
        sx={{
          display: 'flex',
          alignItems: { xs: 'flex-start', sm: 'center' },
          flexDirection: { xs: 'column', sm: 'row' },
          gap: { xs: 0.5, sm: 1.5 },
          flex: 1,
          minWidth: 0,
        }}
      >
        <Typography variant="h6" component="h1" noWrap title={chat.name} sx={{ minWidth: 0, maxWidth: '100%' }}>
          {chat.name}
        </Typography>
        <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap', minWidth: 0 }}>
          {ontologyName && (
            <Chip
              icon={<StorageIcon />}
              label={ontologyName}
              size="small"
              variant="outlined"
              title={`Ontology: ${ontologyName}`}
              sx={{ maxWidth: 220 }}
            />
          )}
          {sharedBy && (
            <Chip
              icon={<GroupOutlinedIcon />}
              label={sharedByLabel(sharedBy)}
              size="small"
              variant="outlined"
              title={`This ontology is shared with you by ${sharedBy}`}
              sx={{ maxWidth: 260 }}
            />
          )}
          {modelLabel && chat.agentMode !== 'offline' ? (
            <Chip
              icon={<SmartToyOutlinedIcon />}
              label={modelLabel}
              size="small"
              variant="outlined"
              title={`Model: ${modelLabel}`}
              sx={{ maxWidth: 260 }}
            />
          ) : (
            <Chip
              icon={<SmartToyOutlinedIcon />}
              label={BUILT_IN_PLANNER}
              size="small"
              variant="outlined"
              color="info"
              title={modelLabel ? BUILT_IN_PLANNER_CHOSEN : BUILT_IN_PLANNER_NO_MODEL}
              sx={{ maxWidth: 260 }}
            />
          )}
        </Box>
      </Box>
      {actions}
    </Box>
  );
}
