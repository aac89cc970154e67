// The streaming state of one chat view: the answers it follows, each the message view built
// from its events (answerReducer), and which one is being followed now. Owned by the chat
// view (useReducer in useDataChat); merged over the chat query's messages for display.

import type { ChatMessageView } from '../types';
import { applyAnswerEvent } from './answerReducer';

export interface AnswerStreams {
  /** The answer being followed now, if any. */
  following: string | null;
  /** Answers followed by this view, by message id: newer than the cached chat's copy. */
  answers: Readonly<Record<string, ChatMessageView>>;
}

export type AnswerAction =
  /** Following starts (again) from `message` as stored: its events replay from the first. */
  | { type: 'start'; message: ChatMessageView }
  | { type: 'event'; messageId: string; event: string; data: unknown }
  /** The server refused or the connection stayed lost: the answer says why, keeping its text. */
  | { type: 'fail'; messageId: string; error: { code: string; message: string } }
  /** The stream was lost but the answer ended meanwhile: `message` as stored replaces it. */
  | { type: 'settle'; message: ChatMessageView }
  | { type: 'end'; messageId: string };

export const NO_STREAMS: AnswerStreams = { following: null, answers: {} };

export function answerStreamsReducer(state: AnswerStreams, action: AnswerAction): AnswerStreams {
  switch (action.type) {
    case 'start':
      return { following: action.message.id, answers: { ...state.answers, [action.message.id]: action.message } };
    case 'event':
    case 'fail': {
      const message = state.answers[action.messageId];
      if (!message) return state;
      const next =
        action.type === 'event'
          ? applyAnswerEvent(message, action.event, action.data)
          : { ...message, status: 'failed' as const, error: action.error };
      return { ...state, answers: { ...state.answers, [action.messageId]: next } };
    }
    case 'settle':
      if (!state.answers[action.message.id]) return state;
      return { ...state, answers: { ...state.answers, [action.message.id]: action.message } };
    case 'end':
      return state.following === action.messageId ? { ...state, following: null } : state;
  }
}

/** The chat's messages with the answers this view followed in place of their cached copies. */
export function mergeAnswers(messages: ChatMessageView[], streams: AnswerStreams): ChatMessageView[] {
  return messages.map((m) => streams.answers[m.id] ?? m);
}
