import { memo, useState } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import IconButton from '@mui/material/IconButton';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import RefreshIcon from '@mui/icons-material/Refresh';
import SummarizeOutlinedIcon from '@mui/icons-material/SummarizeOutlined';
import type { ChartView, ChatMessageView } from '../../types';
import CopyButton from '../common/CopyButton';
import Markdown from '../markdown/Markdown';
import { isSafeImageSrc } from '../markdown/urls';
import ReportDialog from './ReportDialog';
import ToolCallAccordion from './ToolCallAccordion';
import { formatDuration } from './toolLabels';

export interface ChatMessageProps {
  message: ChatMessageView;
  /**
   * Asks this answer's question again: offered (Retry on a failed answer, Regenerate on a
   * finished one) when given, which the list does for the chat's last answer only.
   */
  onAskAgain?: (messageId: string) => void;
}

/** Charts the answer's text does not already show as an image. */
export function chartsToShow(message: Pick<ChatMessageView, 'content' | 'charts'>): ChartView[] {
  const seen = new Set<string>();
  return (message.charts ?? []).filter((chart) => {
    if (!chart?.url || seen.has(chart.url)) return false;
    seen.add(chart.url);
    return !message.content.includes(`](${chart.url}`) && !message.content.includes(`](<${chart.url}>`);
  });
}

function footerCaption(message: ChatMessageView): string | null {
  const parts: string[] = [];
  if (message.tokensUsed?.total) parts.push(`${message.tokensUsed.total.toLocaleString('en-US')} tokens`);
  const duration = formatDuration(message.durationMs);
  if (duration) parts.push(duration);
  return parts.length ? parts.join(' · ') : null;
}

function UserMessage({ message }: ChatMessageProps) {
  return (
    <Box
      data-testid="message"
      data-role="user"
      data-status={message.status}
      sx={{ display: 'flex', justifyContent: 'flex-end', mb: 2 }}
    >
      <Box
        sx={{
          bgcolor: 'primary.main',
          color: 'primary.contrastText',
          px: 2,
          py: 1.25,
          borderRadius: 2.5,
          borderBottomRightRadius: 4,
          maxWidth: { xs: '85%', md: '70%' },
          minWidth: 0,
        }}
      >
        {/* The question is shown as typed: plain text, line breaks kept. */}
        <Typography variant="body1" sx={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
          {message.content}
        </Typography>
      </Box>
    </Box>
  );
}

function AssistantMessage({ message, onAskAgain }: ChatMessageProps) {
  const generating = message.status === 'generating';
  const failed = message.status === 'failed';
  const cancelled = failed && message.error?.code === 'CANCELLED';
  const charts = chartsToShow(message);
  const caption = !generating ? footerCaption(message) : null;
  const reasoning = (message.reasoning ?? []).filter((text) => text.trim());
  const askAgain = !generating && onAskAgain ? () => onAskAgain(message.id) : undefined;
  // A failed (or stopped) answer offers Retry in its notice; a finished one, Regenerate.
  const retry =
    failed && askAgain ? (
      <Button color="inherit" size="small" startIcon={<RefreshIcon />} onClick={askAgain}>
        Retry
      </Button>
    ) : undefined;
  const regenerate = failed ? undefined : askAgain;
  // A complete answer can be opened as a report (the dialog is mounted only while open).
  const [reportOpen, setReportOpen] = useState(false);
  const reportable = message.status === 'complete' && Boolean(message.chatId);

  return (
    <Box
      data-testid="message"
      data-role="assistant"
      data-status={message.status}
      aria-busy={generating || undefined}
      sx={{ display: 'flex', justifyContent: 'flex-start', mb: 2 }}
    >
      <Box
        sx={{
          bgcolor: 'background.paper',
          color: 'text.primary',
          border: 1,
          borderColor: 'divider',
          px: { xs: 1.5, sm: 2 },
          py: 1.5,
          borderRadius: 2.5,
          borderBottomLeftRadius: 4,
          // One width for every answer, so a streaming answer does not jump as it grows.
          width: '100%',
          maxWidth: { xs: '100%', md: '85%' },
          minWidth: 0,
        }}
      >
        {reasoning.map((text, i) => (
          <Box key={`r${i}`} sx={{ color: 'text.secondary', mb: 1 }}>
            <Markdown dense>{text}</Markdown>
          </Box>
        ))}

        {message.toolCalls.map((call, i) => (
          <ToolCallAccordion key={call.id || `t${i}`} toolCall={call} />
        ))}

        {message.content && <Markdown>{message.content}</Markdown>}

        {charts.map((chart) => (
          <Box component="figure" key={chart.id || chart.url} sx={{ m: 0, my: 1.5 }}>
            {isSafeImageSrc(chart.url) ? (
              <Box
                component="img"
                src={chart.url}
                alt={chart.title || 'Chart'}
                loading="lazy"
                sx={{
                  display: 'block',
                  maxWidth: '100%',
                  height: 'auto',
                  borderRadius: 1,
                  border: 1,
                  borderColor: 'divider',
                  bgcolor: 'common.white', // charts are drawn on white: keep them readable in dark mode
                }}
              />
            ) : (
              <Typography variant="body2" color="text.secondary">
                Chart not loaded: {chart.url}
              </Typography>
            )}
            {chart.title && (
              <Typography component="figcaption" variant="caption" color="text.secondary" sx={{ display: 'block', mt: 0.5 }}>
                {chart.title}
              </Typography>
            )}
          </Box>
        ))}

        {generating && (
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mt: message.content || message.toolCalls.length ? 1 : 0 }}>
            <CircularProgress size={message.content ? 14 : 20} aria-label="Generating answer" />
            {!message.content && (
              <Typography variant="body2" color="text.secondary">
                {message.toolCalls.some((c) => c.result === undefined && !c.isError) ? 'Working…' : 'Thinking…'}
              </Typography>
            )}
          </Box>
        )}

        {failed &&
          (cancelled ? (
            <Alert severity="info" variant="outlined" action={retry} sx={{ mt: message.content ? 1.5 : 0 }}>
              Stopped by you.
            </Alert>
          ) : (
            <Alert severity="error" action={retry} sx={{ mt: message.content ? 1.5 : 0 }}>
              {message.error?.message || 'The answer failed.'}
            </Alert>
          ))}

        {!generating && (message.content || caption || regenerate || reportable) && (
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mt: 0.5, mb: -0.5 }}>
            {message.content && <CopyButton text={message.content} label="Copy answer" />}
            {reportable && (
              <Tooltip title="Report">
                <IconButton aria-label="Report" size="small" onClick={() => setReportOpen(true)}>
                  <SummarizeOutlinedIcon fontSize="inherit" />
                </IconButton>
              </Tooltip>
            )}
            {regenerate && (
              <Tooltip title="Regenerate">
                <IconButton aria-label="Regenerate" size="small" onClick={regenerate}>
                  <RefreshIcon fontSize="inherit" />
                </IconButton>
              </Tooltip>
            )}
            {caption && (
              <Typography variant="caption" color="text.secondary">
                {caption}
              </Typography>
            )}
          </Box>
        )}
        {reportOpen && (
          <ReportDialog chatId={message.chatId} messageId={message.id} onClose={() => setReportOpen(false)} />
        )}
      </Box>
    </Box>
  );
}

/** One message: the question (right, primary) or the answer (left: tools, markdown, charts). */
function ChatMessage({ message, onAskAgain }: ChatMessageProps) {
  return message.role === 'user' ? (
    <UserMessage message={message} />
  ) : (
    <AssistantMessage message={message} onAskAgain={onAskAgain} />
  );
}

export default memo(ChatMessage);
