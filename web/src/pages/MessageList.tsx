import Box from '@mui/material/Box';
import { useEffect, useLayoutEffect, useRef } from 'react';
import ChatMessage from '../components/data-agent/ChatMessage';
import type { ChatMessageView } from '../types';

/** How close to the end (px) still counts as "at the end": the list keeps following. */
const FOLLOW_SLACK_PX = 48;

export interface MessageListProps {
  messages: ChatMessageView[];
  /** An answer is being written (the log is busy: screen readers wait for it). */
  streaming?: boolean;
  /**
   * Asks the question of an answer again (data_agent:write): offered on the last message when
   * it is an answer that has ended, while nothing is being asked or written.
   */
  onAskAgain?: (messageId: string) => void;
}

/**
 * The messages, oldest first, in a scrolling log that follows new content to the end unless
 * the person has scrolled up to read; sending a question follows again.
 */
export default function MessageList({ messages, streaming = false, onAskAgain }: MessageListProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const content = useRef<HTMLDivElement>(null);
  const following = useRef(true);
  const count = useRef(0);

  const toEnd = () => {
    const el = scroller.current;
    if (el) el.scrollTop = el.scrollHeight;
  };

  useLayoutEffect(() => {
    if (messages.length > count.current) following.current = true; // a new question
    count.current = messages.length;
    if (following.current) toEnd();
  }, [messages]);

  useEffect(() => {
    // Content grows without new messages too (an image loads, an accordion opens).
    const el = content.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => {
      if (following.current) toEnd();
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  const onScroll = () => {
    const el = scroller.current;
    if (!el) return;
    following.current = el.scrollHeight - el.scrollTop - el.clientHeight <= FOLLOW_SLACK_PX;
  };

  return (
    <Box
      ref={scroller}
      role="log"
      aria-label="Messages"
      aria-busy={streaming || undefined}
      tabIndex={0}
      onScroll={onScroll}
      // relative: screen-reader-only text (absolutely placed) stays inside the scroller
      // instead of stretching the page below it.
      sx={{ flex: 1, minHeight: 0, overflowY: 'auto', position: 'relative' }}
    >
      <Box
        ref={content}
        sx={{
          maxWidth: 960,
          mx: 'auto',
          px: { xs: 1.5, sm: 3 },
          py: 2,
          display: 'flex',
          flexDirection: 'column',
          gap: 2,
        }}
      >
        {messages.map((message, i) => (
          <ChatMessage
            key={message.id}
            message={message}
            onAskAgain={i === messages.length - 1 && !streaming ? onAskAgain : undefined}
          />
        ))}
      </Box>
    </Box>
  );
}
