import { useState } from 'react';
import Accordion from '@mui/material/Accordion';
import AccordionDetails from '@mui/material/AccordionDetails';
import AccordionSummary from '@mui/material/AccordionSummary';
import Box from '@mui/material/Box';
import CircularProgress from '@mui/material/CircularProgress';
import Typography from '@mui/material/Typography';
import CodeIcon from '@mui/icons-material/Code';
import ErrorIcon from '@mui/icons-material/Error';
import ExpandMoreIcon from '@mui/icons-material/ExpandMore';
import InfoOutlinedIcon from '@mui/icons-material/InfoOutlined';
import ListAltIcon from '@mui/icons-material/ListAlt';
import StorageIcon from '@mui/icons-material/Storage';
import TableRowsOutlinedIcon from '@mui/icons-material/TableRowsOutlined';
import type { ToolCallView } from '../../types';
import CodeBlock from '../markdown/CodeBlock';
import Markdown from '../markdown/Markdown';
import { formatDuration, getToolLabel } from './toolLabels';

export interface ToolCallAccordionProps {
  toolCall: ToolCallView;
  /** Start expanded. */
  defaultExpanded?: boolean;
}

const ICONS: Record<string, typeof CodeIcon> = {
  query_database: StorageIcon,
  get_dataset_details: InfoOutlinedIcon,
  get_sample_data: TableRowsOutlinedIcon,
  run_python: CodeIcon,
  list_datasets: ListAltIcon,
};

function stringArg(args: Record<string, unknown>, key: string): string | null {
  const value = args?.[key];
  return typeof value === 'string' && value.trim() ? value : null;
}

function SectionLabel({ children }: { children: string }) {
  return (
    <Typography
      variant="caption"
      component="div"
      color="text.secondary"
      sx={{ fontWeight: 600, textTransform: 'uppercase', letterSpacing: 0.5, mt: 1 }}
    >
      {children}
    </Typography>
  );
}

/** One tool call, ChatGPT's "Analyzed data" style: collapsed to its label, open for details. */
export default function ToolCallAccordion({ toolCall, defaultExpanded = false }: ToolCallAccordionProps) {
  const [expanded, setExpanded] = useState(defaultExpanded);
  const running = toolCall.result === undefined && !toolCall.isError;
  const failed = !!toolCall.isError;
  const label = getToolLabel(toolCall.name);
  const Icon = ICONS[toolCall.name] ?? CodeIcon;
  const duration = formatDuration(toolCall.durationMs);
  const args = toolCall.args ?? {};
  const sql = toolCall.name === 'query_database' ? stringArg(args, 'sql') : null;
  const code = toolCall.name === 'run_python' ? stringArg(args, 'code') : null;

  return (
    <Accordion
      expanded={expanded}
      onChange={(_, open) => setExpanded(open)}
      disableGutters
      variant="outlined"
      // Heavy (highlighting) content is only built once opened.
      slotProps={{ transition: { unmountOnExit: true } }}
      data-testid="tool-call"
      data-tool={toolCall.name}
      data-state={running ? 'running' : failed ? 'error' : 'done'}
      sx={{
        my: 1,
        borderRadius: 1,
        bgcolor: 'background.paper',
        '&::before': { display: 'none' },
        overflow: 'hidden',
      }}
    >
      <AccordionSummary
        expandIcon={<ExpandMoreIcon />}
        sx={{ minHeight: 40, '& .MuiAccordionSummary-content': { my: 0.75, minWidth: 0 } }}
      >
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, minWidth: 0 }}>
          {failed ? (
            <ErrorIcon fontSize="small" color="error" aria-hidden />
          ) : (
            <Icon fontSize="small" color="action" aria-hidden />
          )}
          <Typography variant="body2" sx={{ fontWeight: 500 }} noWrap>
            {label}
          </Typography>
          {running && <CircularProgress size={14} aria-label={`${label}: running`} />}
          {failed && (
            <Typography variant="body2" color="error" component="span">
              failed
            </Typography>
          )}
          {duration && !running && (
            <Typography variant="caption" color="text.secondary" component="span" sx={{ whiteSpace: 'nowrap' }}>
              {duration}
            </Typography>
          )}
        </Box>
      </AccordionSummary>
      <AccordionDetails sx={{ pt: 0, minWidth: 0 }}>
        {sql !== null ? (
          <>
            <SectionLabel>SQL</SectionLabel>
            <CodeBlock code={sql} language="sql" copyLabel="Copy SQL" wrap maxHeight={400} />
          </>
        ) : code !== null ? (
          <>
            <SectionLabel>Code</SectionLabel>
            <CodeBlock code={code} language="python" copyLabel="Copy code" maxHeight={400} />
          </>
        ) : (
          <>
            <SectionLabel>Arguments</SectionLabel>
            <CodeBlock code={JSON.stringify(args, null, 2)} language="json" copyLabel="Copy arguments" wrap />
          </>
        )}

        <SectionLabel>Result</SectionLabel>
        {running ? (
          <Typography variant="body2" color="text.secondary" sx={{ py: 1 }}>
            Running…
          </Typography>
        ) : failed ? (
          <Box
            component="pre"
            sx={{
              m: 0,
              mt: 0.5,
              p: 1.5,
              borderRadius: 1,
              border: 1,
              borderColor: 'error.main',
              color: 'error.main',
              fontFamily: 'monospace',
              fontSize: '0.8125rem',
              whiteSpace: 'pre-wrap',
              overflowWrap: 'anywhere',
            }}
          >
            {toolCall.result || 'The tool failed.'}
          </Box>
        ) : (
          <Box sx={{ mt: 0.5, maxHeight: 480, overflow: 'auto' }}>
            {toolCall.result ? (
              <Markdown dense>{toolCall.result}</Markdown>
            ) : (
              <Typography variant="body2" color="text.secondary">
                (no output)
              </Typography>
            )}
          </Box>
        )}
      </AccordionDetails>
    </Accordion>
  );
}
