/// <reference types="react-syntax-highlighter" />
import { memo } from 'react';
import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import { useTheme } from '@mui/material/styles';
import SyntaxHighlighter from 'react-syntax-highlighter/dist/esm/prism-light';
import bash from 'react-syntax-highlighter/dist/esm/languages/prism/bash';
import javascript from 'react-syntax-highlighter/dist/esm/languages/prism/javascript';
import json from 'react-syntax-highlighter/dist/esm/languages/prism/json';
import python from 'react-syntax-highlighter/dist/esm/languages/prism/python';
import sql from 'react-syntax-highlighter/dist/esm/languages/prism/sql';
import typescript from 'react-syntax-highlighter/dist/esm/languages/prism/typescript';
import oneDark from 'react-syntax-highlighter/dist/esm/styles/prism/one-dark';
import oneLight from 'react-syntax-highlighter/dist/esm/styles/prism/one-light';
import CopyButton from '../common/CopyButton';

// Only the languages the agent writes (SQL, Python) or shows (JSON), plus shell and JS/TS
// for answers that quote them: the light build keeps the rest of Prism out of the bundle.
SyntaxHighlighter.registerLanguage('sql', sql);
SyntaxHighlighter.registerLanguage('python', python);
SyntaxHighlighter.registerLanguage('json', json);
SyntaxHighlighter.registerLanguage('bash', bash);
SyntaxHighlighter.registerLanguage('javascript', javascript);
SyntaxHighlighter.registerLanguage('typescript', typescript);

const ALIASES: Record<string, string> = {
  sql: 'sql',
  postgres: 'sql',
  postgresql: 'sql',
  mysql: 'sql',
  sqlite: 'sql',
  python: 'python',
  py: 'python',
  python3: 'python',
  json: 'json',
  bash: 'bash',
  sh: 'bash',
  shell: 'bash',
  zsh: 'bash',
  console: 'bash',
  javascript: 'javascript',
  js: 'javascript',
  jsx: 'javascript',
  mjs: 'javascript',
  typescript: 'typescript',
  ts: 'typescript',
  tsx: 'typescript',
};

/** The registered language for a fence's info string, or "text" (shown unhighlighted). */
export function normalizeLanguage(language: string | null | undefined): string {
  return (language && ALIASES[language.toLowerCase()]) || 'text';
}

export interface CodeBlockProps {
  code: string;
  /** The fence's language (`sql`, `py`, ...); unknown ones are shown as plain text. */
  language?: string | null;
  /** Accessible name of the copy button; default "Copy code". */
  copyLabel?: string;
  /** Wrap long lines instead of scrolling sideways (handy for one-line SQL). */
  wrap?: boolean;
  /** Cap the height (px) and scroll inside. */
  maxHeight?: number;
}

/** A highlighted code block with its language and a copy button; light or dark with the theme. */
function CodeBlock({ code, language, copyLabel = 'Copy code', wrap = false, maxHeight }: CodeBlockProps) {
  const theme = useTheme();
  const lang = normalizeLanguage(language);
  const shown = code.replace(/\n$/, '');
  const label = language ? language.toLowerCase() : lang === 'text' ? 'text' : lang;

  return (
    <Box
      sx={{
        position: 'relative',
        my: 1,
        border: 1,
        borderColor: 'divider',
        borderRadius: 1,
        overflow: 'hidden',
        maxWidth: '100%',
      }}
    >
      <Box
        sx={{
          display: 'flex',
          alignItems: 'center',
          justifyContent: 'space-between',
          px: 1.5,
          py: 0.25,
          bgcolor: 'action.hover',
          borderBottom: 1,
          borderColor: 'divider',
        }}
      >
        <Typography variant="caption" color="text.secondary" sx={{ fontFamily: 'monospace' }}>
          {label}
        </Typography>
        <CopyButton text={shown} label={copyLabel} />
      </Box>
      <SyntaxHighlighter
        language={lang}
        style={theme.palette.mode === 'dark' ? oneDark : oneLight}
        wrapLongLines={wrap}
        customStyle={{
          margin: 0,
          borderRadius: 0,
          fontSize: '0.8125rem',
          lineHeight: 1.5,
          padding: '12px 16px',
          overflowX: 'auto',
          maxHeight,
          overflowY: maxHeight ? 'auto' : undefined,
        }}
      >
        {shown}
      </SyntaxHighlighter>
    </Box>
  );
}

export default memo(CodeBlock);
