import { makeMessage } from '../test/render';
import { answerStreamsReducer, mergeAnswers, NO_STREAMS } from './answerStore';

describe('answerStreamsReducer', () => {
  const base = makeMessage({ id: 'm2', status: 'generating', content: '' });

  it('builds the followed answer from its events and ends it', () => {
    let s = answerStreamsReducer(NO_STREAMS, { type: 'start', message: base });
    expect(s.following).toBe('m2');
    s = answerStreamsReducer(s, { type: 'event', messageId: 'm2', event: 'message_chunk', data: { chunk: 'Forty' } });
    s = answerStreamsReducer(s, { type: 'event', messageId: 'm2', event: 'message_chunk', data: { chunk: '-two' } });
    expect(s.answers.m2.content).toBe('Forty-two');
    s = answerStreamsReducer(s, { type: 'end', messageId: 'm2' });
    expect(s.following).toBeNull();
    expect(s.answers.m2.content).toBe('Forty-two');
  });

  it('starting again replays from the stored message (no text twice)', () => {
    let s = answerStreamsReducer(NO_STREAMS, { type: 'start', message: base });
    s = answerStreamsReducer(s, { type: 'event', messageId: 'm2', event: 'message_chunk', data: { chunk: 'A' } });
    s = answerStreamsReducer(s, { type: 'start', message: base });
    s = answerStreamsReducer(s, { type: 'event', messageId: 'm2', event: 'message_chunk', data: { chunk: 'A' } });
    expect(s.answers.m2.content).toBe('A');
  });

  it('a failure keeps the text and says why; events for an unknown answer are ignored', () => {
    let s = answerStreamsReducer(NO_STREAMS, { type: 'start', message: { ...base, content: 'Part' } });
    s = answerStreamsReducer(s, { type: 'fail', messageId: 'm2', error: { code: 'LLM_UNAVAILABLE', message: 'No model.' } });
    expect(s.answers.m2).toMatchObject({ status: 'failed', content: 'Part', error: { code: 'LLM_UNAVAILABLE' } });
    expect(answerStreamsReducer(s, { type: 'event', messageId: 'zz', event: 'message_chunk', data: { chunk: 'x' } })).toBe(s);
    // Ending an answer that is not the one followed changes nothing.
    expect(answerStreamsReducer(s, { type: 'end', messageId: 'zz' })).toBe(s);
  });

  it('settling replaces the streamed answer with the stored one; an unknown answer is ignored', () => {
    let s = answerStreamsReducer(NO_STREAMS, { type: 'start', message: base });
    s = answerStreamsReducer(s, { type: 'event', messageId: 'm2', event: 'message_chunk', data: { chunk: 'For' } });
    const stored = makeMessage({ id: 'm2', status: 'complete', content: 'Forty-two.' });
    s = answerStreamsReducer(s, { type: 'settle', message: stored });
    expect(s.answers.m2).toBe(stored);
    const other = makeMessage({ id: 'zz', status: 'complete' });
    expect(answerStreamsReducer(s, { type: 'settle', message: other })).toBe(s);
  });

  it('mergeAnswers puts followed answers over the cached messages, in place', () => {
    const user = makeMessage({ id: 'm1', role: 'user', content: 'Q' });
    let s = answerStreamsReducer(NO_STREAMS, { type: 'start', message: base });
    s = answerStreamsReducer(s, { type: 'event', messageId: 'm2', event: 'message_chunk', data: { chunk: 'A' } });
    expect(mergeAnswers([user, base], s).map((m) => m.content)).toEqual(['Q', 'A']);
    expect(mergeAnswers([user], s)).toEqual([user]);
  });
});
