import { useEffect, useRef, useState } from 'react';
import IconButton, { type IconButtonProps } from '@mui/material/IconButton';
import Tooltip from '@mui/material/Tooltip';
import Box from '@mui/material/Box';
import { visuallyHidden } from './visuallyHidden';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import CheckIcon from '@mui/icons-material/Check';
import ErrorOutlineIcon from '@mui/icons-material/ErrorOutlined';
import { copyText } from './clipboard';

export interface CopyButtonProps {
  /** The text to copy, or a function giving it at click time. */
  text: string | (() => string);
  /** The button's accessible name, e.g. "Copy SQL". */
  label: string;
  size?: IconButtonProps['size'];
  sx?: IconButtonProps['sx'];
  /** How long the "Copied" tooltip stays, in ms. */
  feedbackMs?: number;
}

type CopyState = 'idle' | 'copied' | 'failed';

/** An icon button that copies text and says "Copied" (or "Copy failed") in its tooltip. */
export default function CopyButton({ text, label, size = 'small', sx, feedbackMs = 2000 }: CopyButtonProps) {
  const [state, setState] = useState<CopyState>('idle');
  const [hovered, setHovered] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  useEffect(() => () => clearTimeout(timer.current), []);

  const handleClick = async () => {
    const value = typeof text === 'function' ? text() : text;
    const ok = await copyText(value);
    setState(ok ? 'copied' : 'failed');
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setState('idle'), feedbackMs);
  };

  const tooltip = state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : label;
  const icon =
    state === 'copied' ? (
      <CheckIcon fontSize="inherit" color="success" />
    ) : state === 'failed' ? (
      <ErrorOutlineIcon fontSize="inherit" color="error" />
    ) : (
      <ContentCopyIcon fontSize="inherit" />
    );

  return (
    <>
      <Tooltip
        title={tooltip}
        open={hovered || state !== 'idle'}
        onOpen={() => setHovered(true)}
        onClose={() => setHovered(false)}
      >
        <IconButton aria-label={label} size={size} onClick={handleClick} sx={sx}>
          {icon}
        </IconButton>
      </Tooltip>
      {/* Tell screen readers too: the tooltip is not a live region. */}
      <Box component="span" role="status" sx={visuallyHidden}>
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : ''}
      </Box>
    </>
  );
}
