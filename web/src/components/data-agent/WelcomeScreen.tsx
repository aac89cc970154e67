import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardActionArea from '@mui/material/CardActionArea';
import CardContent from '@mui/material/CardContent';
import Grid from '@mui/material/Grid';
import IconButton from '@mui/material/IconButton';
import Typography from '@mui/material/Typography';
import AddIcon from '@mui/icons-material/Add';
import MenuIcon from '@mui/icons-material/Menu';
import SmartToyOutlinedIcon from '@mui/icons-material/SmartToyOutlined';
import type { Suggestion } from '../../types';

export interface WelcomeScreenProps {
  /** Shown above the suggestions: the chat's ontology, or none on the no-chat screen. */
  ontologyName?: string | null;
  suggestions: Suggestion[];
  onSuggestion: (prompt: string) => void;
  /** On the no-chat screen: the New chat button; absent inside an empty chat. */
  onNewChat?: () => void;
  canWrite: boolean;
  /** Below the `md` breakpoint on the no-chat screen: opens the chat list drawer. */
  onOpenSidebar?: () => void;
}

/**
 * The no-chat screen (icon, "Data Agent", New chat, suggested questions) and, inside an
 * empty chat, the suggested questions for its ontology.
 */
export default function WelcomeScreen({
  ontologyName,
  suggestions,
  onSuggestion,
  onNewChat,
  canWrite,
  onOpenSidebar,
}: WelcomeScreenProps) {
  const inChat = !onNewChat;
  // On the no-chat screen a suggestion starts a chat: that needs the write permission.
  const suggestionsEnabled = inChat || canWrite;

  return (
    <Box sx={{ position: 'relative', height: '100%', overflowY: 'auto' }}>
      {onOpenSidebar && (
        <IconButton
          aria-label="Open chat list"
          onClick={onOpenSidebar}
          sx={{ position: 'absolute', top: 8, left: 8, display: { xs: 'inline-flex', md: 'none' } }}
        >
          <MenuIcon />
        </IconButton>
      )}
      <Box
        sx={{
          minHeight: '100%',
          display: 'flex',
          flexDirection: 'column',
          alignItems: 'center',
          justifyContent: 'center',
          gap: inChat ? 2 : 3,
          px: 2,
          py: { xs: 6, md: 4 },
          textAlign: 'center',
        }}
      >
        <SmartToyOutlinedIcon sx={{ fontSize: inChat ? 48 : 72, color: 'primary.main' }} aria-hidden />

        {inChat ? (
          <Typography variant="h5" component="h2">
            {ontologyName ? `Ask about ${ontologyName}` : 'Ask a question'}
          </Typography>
        ) : (
          <Typography variant="h4" component="h1">
            Data Agent
          </Typography>
        )}

        <Typography variant="body1" color="text.secondary" sx={{ maxWidth: 560 }}>
          {inChat ? (
            'Pick a suggestion or type your own question below.'
          ) : (
            <>
              Ask questions about your data in natural language.
              <br />
              Select a conversation from the sidebar or start a new one.
            </>
          )}
        </Typography>

        {onNewChat && canWrite && (
          <Button variant="contained" size="large" startIcon={<AddIcon />} onClick={onNewChat}>
            New chat
          </Button>
        )}

        {suggestions.length > 0 && (
          <Box sx={{ width: '100%', maxWidth: 840 }}>
            {!inChat && ontologyName && (
              <Typography variant="subtitle2" color="text.secondary" sx={{ mb: 1.5 }}>
                Ask about {ontologyName}
              </Typography>
            )}
            <Grid container spacing={2} component="ul" sx={{ listStyle: 'none', p: 0, m: 0 }} aria-label="Suggested questions">
              {suggestions.map((suggestion) => (
                <Grid component="li" key={`${suggestion.title}|${suggestion.prompt}`} size={{ xs: 12, sm: 6 }}>
                  <Card variant="outlined" sx={{ height: '100%' }}>
                    <CardActionArea
                      onClick={() => onSuggestion(suggestion.prompt)}
                      disabled={!suggestionsEnabled}
                      sx={{ height: '100%', alignItems: 'flex-start', textAlign: 'left' }}
                    >
                      <CardContent sx={{ py: 1.5 }}>
                        <Typography variant="body2" sx={{ fontWeight: 600 }}>
                          {suggestion.title}
                        </Typography>
                        <Typography variant="caption" color="text.secondary" component="div">
                          {suggestion.description}
                        </Typography>
                      </CardContent>
                    </CardActionArea>
                  </Card>
                </Grid>
              ))}
            </Grid>
          </Box>
        )}
      </Box>
    </Box>
  );
}
