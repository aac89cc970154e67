import { describe, expect, it, vi } from 'vitest';
import { fireEvent, screen } from '@testing-library/react';
import { renderWithTheme } from '../../test/render';
import ChatInput, { type ChatInputProps } from './ChatInput';

function setup(overrides: Partial<ChatInputProps> = {}) {
  const props: ChatInputProps = { onSend: vi.fn(), onStop: vi.fn(), streaming: false, ...overrides };
  const result = renderWithTheme(<ChatInput {...props} />);
  return { props, box: screen.getByRole('textbox', { name: 'Message' }), ...result };
}

describe('ChatInput', () => {
  it('is a multiline box with the placeholder', () => {
    const { box } = setup();
    expect(box.tagName).toBe('TEXTAREA');
    expect(box).toHaveAttribute('placeholder', 'Ask a question about your data...');
  });

  it('sends with Enter and clears the box', async () => {
    const { props, box, user } = setup();
    await user.type(box, 'Top customers?{Enter}');
    expect(props.onSend).toHaveBeenCalledWith('Top customers?');
    expect(box).toHaveValue('');
  });

  it('trims what it sends', async () => {
    const { props, box, user } = setup();
    await user.type(box, '  hello  {Enter}');
    expect(props.onSend).toHaveBeenCalledWith('hello');
  });

  it('adds a new line with Shift+Enter instead of sending', async () => {
    const { props, box, user } = setup();
    await user.type(box, 'line one{Shift>}{Enter}{/Shift}line two');
    expect(props.onSend).not.toHaveBeenCalled();
    expect(box).toHaveValue('line one\nline two');
  });

  it('does not send while an input method is composing', () => {
    const { props, box } = setup();
    fireEvent.change(box, { target: { value: 'にほん' } });
    fireEvent.keyDown(box, { key: 'Enter', isComposing: true });
    fireEvent.keyDown(box, { key: 'Enter', keyCode: 229 });
    expect(props.onSend).not.toHaveBeenCalled();
    fireEvent.keyDown(box, { key: 'Enter' });
    expect(props.onSend).toHaveBeenCalledWith('にほん');
  });

  it('sends with the Send button', async () => {
    const { props, box, user } = setup();
    await user.type(box, 'Revenue by month');
    await user.click(screen.getByRole('button', { name: 'Send message' }));
    expect(props.onSend).toHaveBeenCalledWith('Revenue by month');
  });

  it('cannot send an empty or blank message', async () => {
    const { props, box, user } = setup();
    const send = screen.getByRole('button', { name: 'Send message' });
    expect(send).toBeDisabled();
    await user.type(box, '   {Enter}');
    expect(send).toBeDisabled();
    expect(props.onSend).not.toHaveBeenCalled();
  });

  it('is disabled while streaming, with a Stop button that calls onStop', async () => {
    const { props, box, user } = setup({ streaming: true });
    expect(box).toBeDisabled();
    expect(screen.queryByRole('button', { name: 'Send message' })).toBeNull();
    const stop = screen.getByRole('button', { name: 'Stop generating' });
    expect(stop).toBeEnabled();
    await user.click(stop);
    expect(props.onStop).toHaveBeenCalledTimes(1);
    fireEvent.keyDown(box, { key: 'Enter' });
    expect(props.onSend).not.toHaveBeenCalled();
  });

  it('keeps the typed text across a stream', () => {
    const { props, rerender } = setup();
    const box = screen.getByRole('textbox', { name: 'Message' });
    fireEvent.change(box, { target: { value: 'next question' } });
    rerender(<ChatInput {...props} streaming />);
    expect(box).toHaveValue('next question');
    rerender(<ChatInput {...props} streaming={false} />);
    expect(box).toHaveValue('next question');
    expect(screen.getByRole('button', { name: 'Send message' })).toBeEnabled();
  });

  it('shows disabledReason and disables everything', () => {
    const { box } = setup({ disabledReason: 'Viewers cannot ask questions.' });
    expect(box).toBeDisabled();
    expect(screen.getByText('Viewers cannot ask questions.')).toBeInTheDocument();
    expect(box).toHaveAccessibleDescription('Viewers cannot ask questions.');
    expect(screen.getByRole('button', { name: 'Send message' })).toBeDisabled();
  });

  it('disables Stop too when it cannot send at all', () => {
    setup({ streaming: true, disabledReason: 'No model is configured.' });
    expect(screen.getByRole('button', { name: 'Stop generating' })).toBeDisabled();
  });

  it('keeps Stop usable when told to, though sending is disabled (a withdrawn chat)', () => {
    const { props } = setup({ streaming: true, disabledReason: 'No longer shared.', canStop: true });
    const stop = screen.getByRole('button', { name: 'Stop generating' });
    expect(stop).toBeEnabled();
    fireEvent.click(stop);
    expect(props.onStop).toHaveBeenCalledTimes(1);
  });

  it('fills the box from the draft prop, and a new draft replaces the text', () => {
    const { props, rerender } = setup({ draft: 'Top 10 customers by revenue' });
    const box = screen.getByRole('textbox', { name: 'Message' });
    expect(box).toHaveValue('Top 10 customers by revenue');
    fireEvent.change(box, { target: { value: 'edited' } });
    rerender(<ChatInput {...props} draft="Revenue by month" />);
    expect(box).toHaveValue('Revenue by month');
    expect(box).toHaveFocus();
    // The same draft again does not wipe what was typed since.
    fireEvent.change(box, { target: { value: 'typed' } });
    rerender(<ChatInput {...props} draft="Revenue by month" />);
    expect(box).toHaveValue('typed');
  });
});
