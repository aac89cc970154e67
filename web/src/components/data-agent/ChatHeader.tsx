import type { ReactNode } from 'react';
import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import IconButton from '@mui/material/IconButton';
import Typography from '@mui/material/Typography';
import MenuIcon from '@mui/icons-material/Menu';
import SmartToyOutlinedIcon from '@mui/icons-material/SmartToyOutlined';
import StorageIcon from '@mui/icons-material/Storage';
import type { ChatSummary } from '../../types';

export interface ChatHeaderProps {
  chat: ChatSummary;
  ontologyName: string | null;
  /** "Provider · model" in use for this chat; null when no model is configured. */
  modelLabel: string | null;
  /** Shown below the `md` breakpoint: opens the chat list drawer. */
  onOpenSidebar?: () => void;
  /** Extra controls at the right end (e.g. a menu). */
  actions?: ReactNode;
}

/** The chat's name, its ontology and the model answering. */
export default function ChatHeader({ chat, ontologyName, modelLabel, onOpenSidebar, actions }: ChatHeaderProps) {
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
          <Chip
            icon={<SmartToyOutlinedIcon />}
            label={modelLabel ?? 'No model configured'}
            size="small"
            variant="outlined"
            color={modelLabel ? 'default' : 'warning'}
            title={modelLabel ? `Model: ${modelLabel}` : 'No model configured'}
            sx={{ maxWidth: 260 }}
          />
        </Box>
      </Box>
      {actions}
    </Box>
  );
}
