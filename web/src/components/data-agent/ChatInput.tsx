import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import Box from '@mui/material/Box';
import IconButton from '@mui/material/IconButton';
import TextField from '@mui/material/TextField';
import SendIcon from '@mui/icons-material/Send';
import StopIcon from '@mui/icons-material/Stop';

export interface ChatInputProps {
  onSend: (text: string) => void;
  onStop: () => void;
  /** An answer is being written: the box is disabled and Send becomes Stop. */
  streaming: boolean;
  /** Cannot send at all (a viewer, no model): the box is disabled with this reason. */
  disabledReason?: string | null;
  /**
   * Stop stays usable although sending is disabled (a chat whose ontology was withdrawn
   * while its answer was being written: the person may still stop their own answer).
   */
  canStop?: boolean;
  /**
   * Text to put in the box (a suggestion clicked); changes replace the box's text.
   * A change to "" or undefined leaves the box as it is.
   */
  draft?: string;
  /** Focus the box when it appears. */
  autoFocus?: boolean;
}

/**
 * The question box: grows from 1 to 10 lines; Enter sends, Shift+Enter is a new line (and
 * Enter while an input method is composing does nothing); Stop while an answer streams.
 */
export default function ChatInput({
  onSend,
  onStop,
  streaming,
  disabledReason,
  canStop = false,
  draft,
  autoFocus = false,
}: ChatInputProps) {
  const [value, setValue] = useState(draft ?? '');
  const [lastDraft, setLastDraft] = useState(draft);
  const inputRef = useRef<HTMLTextAreaElement | null>(null);

  // A new draft replaces the text (adjusting state while rendering, not in an effect).
  if (draft !== lastDraft) {
    setLastDraft(draft);
    if (draft) setValue(draft);
  }

  useEffect(() => {
    const input = inputRef.current;
    if (draft && input && !input.disabled) {
      input.focus();
      input.setSelectionRange(input.value.length, input.value.length);
    }
  }, [draft]);

  const blocked = !!disabledReason;

  // When an answer ends, give the box its focus back (it lost it when disabled), unless
  // on a touch screen, where that would pop the keyboard up.
  const wasStreaming = useRef(streaming);
  useEffect(() => {
    const ended = wasStreaming.current && !streaming;
    wasStreaming.current = streaming;
    if (!ended || blocked) return;
    const finePointer = typeof window.matchMedia === 'function' && window.matchMedia('(pointer: fine)').matches;
    if (finePointer && (document.activeElement === document.body || document.activeElement === null)) {
      inputRef.current?.focus();
    }
  }, [streaming, blocked]);
  const disabled = blocked || streaming;
  const canSend = !disabled && value.trim().length > 0;

  const send = () => {
    if (!canSend) return;
    onSend(value.trim());
    setValue('');
  };

  const handleKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key !== 'Enter' || event.shiftKey) return;
    // An input method (Japanese, Chinese, ...) uses Enter to confirm its text.
    if (event.nativeEvent.isComposing || event.keyCode === 229) return;
    event.preventDefault();
    send();
  };

  return (
    <Box
      component="form"
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
      sx={{ display: 'flex', alignItems: 'flex-end', gap: 1 }}
    >
      <TextField
        inputRef={inputRef}
        multiline
        minRows={1}
        maxRows={10}
        fullWidth
        placeholder="Ask a question about your data..."
        value={value}
        onChange={(e) => setValue(e.target.value)}
        onKeyDown={handleKeyDown}
        disabled={disabled}
        autoFocus={autoFocus}
        helperText={disabledReason || undefined}
        slotProps={{ htmlInput: { 'aria-label': 'Message', maxLength: 20000 } }}
        sx={{
          '& .MuiOutlinedInput-root': { borderRadius: 3, bgcolor: 'background.paper' },
        }}
      />
      <Box sx={{ pb: disabledReason ? 3.5 : 0.5, flexShrink: 0 }}>
        {/* No MUI Tooltip here: it would wrap the (disabled) button in a labelled span. */}
        {streaming ? (
          <IconButton
            aria-label="Stop generating"
            title="Stop generating"
            onClick={onStop}
            disabled={blocked && !canStop}
            color="primary"
            sx={{ border: 1, borderColor: 'divider' }}
          >
            <StopIcon />
          </IconButton>
        ) : (
          <IconButton type="submit" aria-label="Send message" title="Send message" disabled={!canSend} color="primary">
            <SendIcon />
          </IconButton>
        )}
      </Box>
    </Box>
  );
}
