import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen } from '@testing-library/react';
import { renderWithTheme } from '../../test/render';
import CopyButton from './CopyButton';

describe('CopyButton', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('copies the text and says "Copied"', async () => {
    const { user } = renderWithTheme(<CopyButton text="SELECT 1" label="Copy SQL" />);
    // user-event installs a clipboard stub on navigator.
    const writeText = vi.spyOn(navigator.clipboard, 'writeText');
    await user.click(screen.getByRole('button', { name: 'Copy SQL' }));
    expect(writeText).toHaveBeenCalledWith('SELECT 1');
    expect(await screen.findByRole('tooltip')).toHaveTextContent('Copied');
    expect(screen.getByRole('status')).toHaveTextContent('Copied');
  });

  it('takes the text from a function at click time', async () => {
    const { user } = renderWithTheme(<CopyButton text={() => 'late'} label="Copy answer" />);
    const writeText = vi.spyOn(navigator.clipboard, 'writeText');
    await user.click(screen.getByRole('button', { name: 'Copy answer' }));
    expect(writeText).toHaveBeenCalledWith('late');
  });

  it('says "Copy failed" when the clipboard refuses and there is no fallback', async () => {
    const { user } = renderWithTheme(<CopyButton text="x" label="Copy code" />);
    vi.spyOn(navigator.clipboard, 'writeText').mockRejectedValue(new Error('denied'));
    // jsdom has no execCommand: the fallback fails too.
    await user.click(screen.getByRole('button', { name: 'Copy code' }));
    expect(await screen.findByRole('tooltip')).toHaveTextContent('Copy failed');
  });

  it('falls back to execCommand("copy") without the Clipboard API', async () => {
    const { user } = renderWithTheme(<CopyButton text="fallback" label="Copy code" />);
    const original = Object.getOwnPropertyDescriptor(window.navigator, 'clipboard');
    Object.defineProperty(window.navigator, 'clipboard', { value: undefined, configurable: true });
    const execCommand = vi.fn(() => true);
    Object.defineProperty(document, 'execCommand', { value: execCommand, configurable: true });
    try {
      await user.click(screen.getByRole('button', { name: 'Copy code' }));
      expect(execCommand).toHaveBeenCalledWith('copy');
      expect(await screen.findByRole('tooltip')).toHaveTextContent('Copied');
    } finally {
      if (original) Object.defineProperty(window.navigator, 'clipboard', original);
      // @ts-expect-error: remove the stub again
      delete document.execCommand;
    }
  });
});
