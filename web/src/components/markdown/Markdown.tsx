import { memo, useState, type ReactNode } from 'react';
import ReactMarkdown, { type Components, type ExtraProps } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import type { SxProps, Theme } from '@mui/material/styles';
import DownloadIcon from '@mui/icons-material/Download';
import ImageNotSupportedOutlinedIcon from '@mui/icons-material/ImageNotSupportedOutlined';
import { downloadCsv } from '../common/csv';
import { splitBlocks, type Blocks } from './blocks';
import CodeBlock from './CodeBlock';
import { hastText, tableRows, type HastElement } from './hast';
import { isInternalLink, isSafeImageSrc, isWebUrl, markdownUrlTransform } from './urls';

export interface MarkdownProps {
  /** Markdown from the model or a tool: rendered without any raw HTML. */
  children: string;
  /** Smaller type, for tool results. */
  dense?: boolean;
  sx?: SxProps<Theme>;
}

const remarkPlugins = [remarkGfm];

const EXTERNAL_REL = 'noopener noreferrer nofollow';

type Align = 'left' | 'center' | 'right' | 'justify' | 'inherit';

function cellAlign(node: HastElement | undefined): Align | undefined {
  const align = node?.properties?.align;
  return align === 'left' || align === 'center' || align === 'right' ? align : undefined;
}

function MarkdownLink({ href, children, title }: { href?: string; children?: ReactNode; title?: string } & ExtraProps) {
  // urlTransform left "" for a forbidden address (javascript: and the like): plain text.
  if (!href) {
    return (
      <Box component="span" title="Link removed: unsafe address">
        {children}
      </Box>
    );
  }
  if (isInternalLink(href)) {
    return (
      <Link href={href} title={title}>
        {children}
      </Link>
    );
  }
  return (
    <Link href={href} title={title ?? href} target="_blank" rel={EXTERNAL_REL}>
      {children}
    </Link>
  );
}

function MarkdownImage({ src, alt, title }: { src?: string | Blob; alt?: string; title?: string } & ExtraProps) {
  const url = typeof src === 'string' ? src : '';
  if (isSafeImageSrc(url)) {
    return (
      <Box
        component="img"
        src={url}
        alt={alt ?? ''}
        title={title}
        loading="lazy"
        sx={{ display: 'block', maxWidth: '100%', height: 'auto', my: 1, borderRadius: 1 }}
      />
    );
  }
  // Anything off this server is not loaded by itself: say so, and let the person decide.
  return (
    <Box
      component="span"
      data-testid="image-placeholder"
      sx={{
        display: 'inline-flex',
        alignItems: 'center',
        gap: 0.5,
        px: 1,
        py: 0.5,
        border: 1,
        borderStyle: 'dashed',
        borderColor: 'divider',
        borderRadius: 1,
        color: 'text.secondary',
        fontSize: '0.875em',
        maxWidth: '100%',
        overflowWrap: 'anywhere',
      }}
    >
      <ImageNotSupportedOutlinedIcon fontSize="small" aria-hidden />
      <span>
        Image not loaded:{' '}
        {isWebUrl(url) ? (
          <Link href={url} target="_blank" rel={EXTERNAL_REL} title={alt || undefined}>
            {url}
          </Link>
        ) : (
          (alt || 'unsafe address removed')
        )}
      </span>
    </Box>
  );
}

function MarkdownTable({ node, children }: { children?: ReactNode } & ExtraProps) {
  return (
    <Box sx={{ my: 1.5, maxWidth: '100%' }}>
      <TableContainer component={Paper} variant="outlined" sx={{ overflowX: 'auto', maxWidth: '100%' }}>
        <Table size="small">{children}</Table>
      </TableContainer>
      <Box sx={{ display: 'flex', justifyContent: 'flex-end' }}>
        <Button
          size="small"
          startIcon={<DownloadIcon fontSize="small" />}
          aria-label="Download table as CSV"
          onClick={() => downloadCsv(tableRows(node))}
        >
          Download CSV
        </Button>
      </Box>
    </Box>
  );
}

function MarkdownPre({ node }: { children?: ReactNode } & ExtraProps) {
  const code = node?.children.find(
    (child): child is HastElement => child.type === 'element' && child.tagName === 'code',
  );
  const classes: unknown = code?.properties?.className;
  const list: string[] = Array.isArray(classes)
    ? classes.map(String)
    : typeof classes === 'string'
      ? classes.split(' ')
      : [];
  const language = list.find((c) => c.startsWith('language-'))?.slice('language-'.length) ?? null;
  return <CodeBlock code={hastText(code ?? node)} language={language} />;
}

const components: Components = {
  // A message sits under the page's h1 (the chat's name): model headings start at h3.
  h1: 'h3',
  h2: 'h4',
  h3: 'h5',
  h4: 'h6',
  h5: 'h6',
  a: ({ node, href, title, children }) => (
    <MarkdownLink node={node} href={href} title={title}>
      {children}
    </MarkdownLink>
  ),
  img: ({ node, src, alt, title }) => <MarkdownImage node={node} src={src} alt={alt} title={title} />,
  pre: ({ node, children }) => <MarkdownPre node={node}>{children}</MarkdownPre>,
  code: ({ children }) => (
    <Box
      component="code"
      sx={{
        fontFamily: 'monospace',
        fontSize: '0.875em',
        px: 0.5,
        py: 0.125,
        borderRadius: 0.5,
        bgcolor: 'action.hover',
        overflowWrap: 'anywhere',
      }}
    >
      {children}
    </Box>
  ),
  table: ({ node, children }) => <MarkdownTable node={node}>{children}</MarkdownTable>,
  thead: ({ children }) => <TableHead>{children}</TableHead>,
  tbody: ({ children }) => <TableBody>{children}</TableBody>,
  tr: ({ children }) => <TableRow>{children}</TableRow>,
  th: ({ node, children }) => (
    <TableCell align={cellAlign(node)} sx={{ fontWeight: 600, whiteSpace: 'nowrap' }}>
      {children}
    </TableCell>
  ),
  td: ({ node, children }) => <TableCell align={cellAlign(node)}>{children}</TableCell>,
};

/** One top-level block; re-rendered only when its own text changes. */
const MarkdownBlock = memo(function MarkdownBlock({ source }: { source: string }) {
  return (
    <ReactMarkdown remarkPlugins={remarkPlugins} components={components} urlTransform={markdownUrlTransform}>
      {source}
    </ReactMarkdown>
  );
});

/**
 * Model or tool markdown, safely: GFM (tables, strikethrough, task lists, autolinks),
 * highlighted code, MUI tables with "Download CSV". Raw HTML is shown as text, never
 * parsed; images load only from this server or inline data; links off the server open in
 * a new tab without a referrer. Rendered block by block: while an answer streams, only
 * its last block re-renders (measured: benchmarks/web_stream_bench.py).
 */
function Markdown({ children, dense = false, sx }: MarkdownProps) {
  // The last split is kept (React's "information from previous renders"), so a longer text,
  // the next piece of a stream, parses only its end.
  const [split, setSplit] = useState<Blocks>(() => splitBlocks(children));
  let current = split;
  if (split.source !== children) {
    current = splitBlocks(children, split);
    setSplit(current);
  }
  const { blocks } = current;
  return (
    <Box
      className="markdown"
      sx={[
        {
          fontSize: dense ? '0.875rem' : '1rem',
          lineHeight: 1.6,
          overflowWrap: 'anywhere',
          minWidth: 0,
          '& > :first-of-type': { mt: 0 },
          '& > :last-child': { mb: 0 },
          '& p': { my: 1 },
          '& ul, & ol': { my: 1, pl: 3 },
          '& li > p': { my: 0.25 },
          '& h3, & h4, & h5, & h6': { mt: 2, mb: 1, lineHeight: 1.3, fontWeight: 600 },
          '& h3': { fontSize: '1.25em' },
          '& h4': { fontSize: '1.125em' },
          '& h5, & h6': { fontSize: '1em' },
          '& blockquote': {
            mx: 0,
            my: 1,
            pl: 2,
            borderLeft: 3,
            borderColor: 'divider',
            color: 'text.secondary',
          },
          '& hr': { border: 0, borderTop: 1, borderColor: 'divider', my: 2 },
          '& input[type="checkbox"]': { mr: 0.5 },
          // Cells break at spaces only (never inside a number); the table scrolls sideways.
          '& td, & th': { overflowWrap: 'normal', wordBreak: 'normal' },
        },
        ...(Array.isArray(sx) ? sx : sx ? [sx] : []),
      ]}
    >
      {blocks.map((block, index) => (
        // A block's place is its identity: a streamed answer only grows at its end.
        <MarkdownBlock key={index} source={block} />
      ))}
    </Box>
  );
}

export default memo(Markdown);
