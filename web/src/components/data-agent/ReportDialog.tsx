import { useQuery } from '@tanstack/react-query';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import DownloadIcon from '@mui/icons-material/Download';
import { useApi } from '../../api/ApiContext';
import { errorMessage, unwrap, type Schemas } from '../../api/client';
import Markdown from '../markdown/Markdown';
import { isSafeImageSrc } from '../markdown/urls';

type Report = Schemas['ReportPublic'];
type Block = Report['blocks'][number];
type JsonCall = Promise<
  { data: { data: Report }; error?: never; response: Response } | { data?: never; error: unknown; response: Response }
>;

export interface ReportDialogProps {
  chatId: string;
  messageId: string;
  onClose: () => void;
}

/** Where a report is served; `?format=html` gives the file to download. */
export function reportPath(chatId: string, messageId: string): string {
  return `/api/data-agent/chats/${encodeURIComponent(chatId)}/messages/${encodeURIComponent(messageId)}/report`;
}

/**
 * An answer as a report (seed 003) in a modal: the server's declarative blocks, each drawn by
 * the page's own components (markdown without raw HTML, tables, chart images); nothing in it
 * is code. Mounted only while open.
 */
export default function ReportDialog({ chatId, messageId, onClose }: ReportDialogProps) {
  const api = useApi();
  const query = useQuery({
    queryKey: ['chats', 'report', chatId, messageId],
    queryFn: ({ signal }) =>
      unwrap(
        // The route also serves text/html (format=html); asked for JSON it answers JSON.
        api.http.GET('/api/data-agent/chats/{chat_id}/messages/{message_id}/report', {
          params: { path: { chat_id: chatId, message_id: messageId }, query: { format: 'json' } },
          signal,
        }) as JsonCall,
      ),
  });
  const report = query.data;

  return (
    <Dialog open onClose={onClose} fullWidth maxWidth="md" scroll="paper" aria-labelledby="report-title">
      <DialogTitle id="report-title">{report?.title ?? 'Report'}</DialogTitle>
      <DialogContent dividers>
        {query.isPending && <CircularProgress aria-label="Loading report" />}
        {query.error && <Alert severity="error">{errorMessage(query.error)}</Alert>}
        {report && (
          <>
            {report.question !== report.title && (
              <Typography variant="body2" color="text.secondary" sx={{ whiteSpace: 'pre-wrap', mb: 2 }}>
                {report.question}
              </Typography>
            )}
            {report.blocks.map((block, i) => (
              <Box key={i} data-testid={`report-block-${block.type}`} sx={{ mb: 2 }}>
                <ReportBlock block={block} />
              </Box>
            ))}
          </>
        )}
      </DialogContent>
      <DialogActions>
        <Button
          component="a"
          href={`${reportPath(chatId, messageId)}?format=html`}
          download
          startIcon={<DownloadIcon />}
          disabled={!report}
        >
          Download HTML
        </Button>
        <Button onClick={onClose}>Close</Button>
      </DialogActions>
    </Dialog>
  );
}

function Heading({ children }: { children: string }) {
  return (
    <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 600, mb: 0.5 }}>
      {children}
    </Typography>
  );
}

function ReportBlock({ block }: { block: Block }) {
  switch (block.type) {
    case 'markdown':
      return <Markdown>{block.text}</Markdown>;
    case 'chart':
      return (
        <Box component="figure" sx={{ m: 0 }}>
          {isSafeImageSrc(block.imageUrl) ? (
            <Box
              component="img"
              src={block.imageUrl}
              alt={block.title || 'Chart'}
              sx={{ display: 'block', maxWidth: '100%', height: 'auto', border: 1, borderColor: 'divider', bgcolor: 'common.white' }}
            />
          ) : (
            <Typography variant="body2" color="text.secondary">
              Chart not loaded.
            </Typography>
          )}
          {block.title && (
            <Typography component="figcaption" variant="caption" color="text.secondary">
              {block.title}
            </Typography>
          )}
        </Box>
      );
    case 'table':
      return (
        <>
          <Heading>{block.title}</Heading>
          <TableContainer sx={{ maxHeight: 360 }}>
            <Table size="small" stickyHeader>
              <TableHead>
                <TableRow>
                  {block.columns.map((column, i) => (
                    <TableCell key={i}>{column}</TableCell>
                  ))}
                </TableRow>
              </TableHead>
              <TableBody>
                {block.rows.map((row, r) => (
                  <TableRow key={r}>
                    {row.map((value, c) => (
                      <TableCell key={c}>{cellText(value)}</TableCell>
                    ))}
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </TableContainer>
          <Typography variant="caption" color="text.secondary">
            {rowsNote(block)}
          </Typography>
        </>
      );
    case 'lineage':
      return (
        <>
          <Heading>Data lineage</Heading>
          <Box component="dl" sx={{ m: 0, display: 'grid', gridTemplateColumns: 'max-content 1fr', columnGap: 2 }}>
            {lineageRows(block).map(([name, value], i) => (
              <Box key={i} sx={{ display: 'contents' }}>
                <Typography component="dt" variant="body2" sx={{ fontWeight: 600 }}>
                  {name}
                </Typography>
                <Typography component="dd" variant="body2" sx={{ m: 0 }}>
                  {value}
                </Typography>
              </Box>
            ))}
          </Box>
        </>
      );
    case 'assumptions':
    case 'caveats':
      return (
        <>
          <Heading>{block.type === 'assumptions' ? 'Assumptions' : 'Caveats'}</Heading>
          <Box component="ul" sx={{ m: 0, pl: 3 }}>
            {block.items.map((item, i) => (
              <Typography component="li" variant="body2" key={i}>
                {item}
              </Typography>
            ))}
          </Box>
        </>
      );
    case 'verification':
      return (
        <>
          <Heading>Verification</Heading>
          <Typography variant="body2" color={block.passed ? 'success.main' : 'error.main'}>
            {block.passed ? 'The checks passed.' : 'The checks failed.'}
          </Typography>
          <Box component="ul" sx={{ m: 0, pl: 3 }}>
            {block.checks.map((check, i) => (
              <Typography component="li" variant="body2" key={i} color={check.passed ? 'text.primary' : 'error.main'}>
                {check.passed ? '✓' : '✗'} {check.name}
                {check.message ? `: ${check.message}` : ''}
              </Typography>
            ))}
          </Box>
        </>
      );
    case 'sql':
      return (
        <>
          <Heading>{block.stepId != null ? `SQL of step ${block.stepId}` : 'SQL'}</Heading>
          <Box
            component="pre"
            sx={{ m: 0, p: 1.5, bgcolor: 'action.hover', borderRadius: 1, overflowX: 'auto', whiteSpace: 'pre-wrap', fontSize: 13 }}
          >
            <code>{block.sql}</code>
          </Box>
        </>
      );
    default:
      return null;
  }
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function rowsNote(block: Extract<Block, { type: 'table' }>): string {
  const count = `${block.rowCount.toLocaleString('en-US')} row${block.rowCount === 1 ? '' : 's'}`;
  return block.truncated || block.rows.length < block.rowCount
    ? `${count}; the first ${block.rows.length.toLocaleString('en-US')} shown`
    : count;
}

function lineageRows(block: Extract<Block, { type: 'lineage' }>): [string, string][] {
  const rows: [string, string][] = [];
  if (block.datasets.length) rows.push(['Datasets', block.datasets.join(', ')]);
  for (const join of block.joins) rows.push(['Join', `${join.from} → ${join.to} on ${join.on}`]);
  if (block.filters.length) rows.push(['Filters', block.filters.join('; ')]);
  if (block.timeWindow) rows.push(['Time window', block.timeWindow]);
  if (block.grain) rows.push(['Grain', block.grain]);
  if (block.rowCount != null) rows.push(['Rows', block.rowCount.toLocaleString('en-US')]);
  return rows;
}
