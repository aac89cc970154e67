import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, within } from '@testing-library/react';
import { makeMessage, renderWithTheme } from '../../test/render';
import * as csv from '../common/csv';
import ChatMessage, { chartsToShow } from './ChatMessage';

const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

function bubbleOf(message: HTMLElement): HTMLElement {
  return message.firstElementChild as HTMLElement;
}

describe('ChatMessage', () => {
  afterEach(() => vi.restoreAllMocks());

  it('renders a user message right-aligned in the primary colour, as plain text', () => {
    const { theme } = renderWithTheme(
      <ChatMessage message={makeMessage({ role: 'user', content: 'Top **10** customers?\nBy revenue' })} />,
    );
    const message = screen.getByTestId('message');
    expect(message).toHaveAttribute('data-role', 'user');
    expect(message).toHaveAttribute('data-status', 'complete');
    expect(getComputedStyle(message).justifyContent).toBe('flex-end');
    const bubble = bubbleOf(message);
    expect(getComputedStyle(bubble).backgroundColor).toBe(hexToRgb(theme.palette.primary.main));
    expect(getComputedStyle(bubble).color).toBe(hexToRgb(theme.palette.primary.contrastText));
    // Not markdown: the asterisks stay.
    expect(message).toHaveTextContent('Top **10** customers?');
    expect(message.querySelector('strong')).toBeNull();
  });

  it('renders an assistant message left-aligned as markdown', () => {
    renderWithTheme(<ChatMessage message={makeMessage({ content: 'The **top** customer is *Acme*.' })} />);
    const message = screen.getByTestId('message');
    expect(message).toHaveAttribute('data-role', 'assistant');
    expect(getComputedStyle(message).justifyContent).toBe('flex-start');
    expect(message.querySelector('strong')).toHaveTextContent('top');
    expect(message.querySelector('em')).toHaveTextContent('Acme');
  });

  it('uses the paper colour, not a fixed grey, for the answer (dark mode too)', () => {
    const { theme } = renderWithTheme(<ChatMessage message={makeMessage({ content: 'Hi' })} />, { mode: 'dark' });
    const bubble = bubbleOf(screen.getByTestId('message'));
    expect(getComputedStyle(bubble).backgroundColor).toBe(hexToRgb(theme.palette.background.paper));
  });

  it('renders tool calls in accordions with their labels, before the answer', () => {
    renderWithTheme(
      <ChatMessage
        message={makeMessage({
          content: 'Done.',
          toolCalls: [
            { id: '1', name: 'list_datasets', args: {}, result: 'orders, customers' },
            { id: '2', name: 'query_database', args: { sql: 'SELECT 1' }, result: '| a |\n|---|\n| 1 |' },
            { id: '3', name: 'run_python', args: { code: 'print(1)' }, result: '1' },
          ],
        })}
      />,
    );
    const calls = screen.getAllByTestId('tool-call');
    expect(calls).toHaveLength(3);
    expect(calls[0]).toHaveTextContent('Listed datasets');
    expect(calls[1]).toHaveTextContent('Analyzed data');
    expect(calls[2]).toHaveTextContent('Ran Python analysis');
    expect(screen.getByRole('button', { name: /^Analyzed data/ })).toHaveAttribute('aria-expanded', 'false');
  });

  it('shows the turn reasoning before the tools', () => {
    renderWithTheme(
      <ChatMessage
        message={makeMessage({
          reasoning: ['Let me look at the orders table.'],
          toolCalls: [{ id: '1', name: 'list_datasets', args: {}, result: 'orders' }],
          content: 'Answer',
        })}
      />,
    );
    expect(screen.getByText('Let me look at the orders table.')).toBeInTheDocument();
  });

  it('renders syntax-highlighted code', () => {
    const { container } = renderWithTheme(
      <ChatMessage message={makeMessage({ content: '```python\nimport pandas as pd\n```' })} />,
    );
    const code = container.querySelector('code.language-python');
    expect(code).toHaveTextContent('import pandas as pd');
    expect(code!.querySelectorAll('.token').length).toBeGreaterThan(0);
  });

  it('renders tables with a Download CSV button that downloads the cells', async () => {
    const download = vi.spyOn(csv, 'downloadCsv').mockImplementation(() => {});
    const { user } = renderWithTheme(
      <ChatMessage message={makeMessage({ content: '| region | revenue |\n|---|---|\n| North, East | 10 |' })} />,
    );
    const table = screen.getByRole('table');
    expect(within(table).getByRole('cell', { name: 'North, East' })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Download table as CSV' }));
    expect(download).toHaveBeenCalledWith([
      ['region', 'revenue'],
      ['North, East', '10'],
    ]);
  });

  it('shows same-origin and base64 images but does not load off-server ones', () => {
    const { container } = renderWithTheme(
      <ChatMessage
        message={makeMessage({
          content: `![Sales](/api/charts/1.png)\n\n![inline](${PNG})\n\n![tracker](https://evil.example/t.png)`,
        })}
      />,
    );
    expect(screen.getByRole('img', { name: 'Sales' })).toHaveAttribute('src', '/api/charts/1.png');
    expect(screen.getByRole('img', { name: 'inline' })).toHaveAttribute('src', PNG);
    expect(container.querySelector('img[src="https://evil.example/t.png"]')).toBeNull();
    expect(screen.getByText(/Image not loaded:/)).toBeInTheDocument();
  });

  it('neutralises javascript: links', () => {
    const { container } = renderWithTheme(
      <ChatMessage message={makeMessage({ content: '[Open](javascript:alert(document.cookie))' })} />,
    );
    expect(screen.queryByRole('link', { name: 'Open' })).toBeNull();
    expect(container.querySelector('[href^="javascript"]')).toBeNull();
    expect(screen.getByText('Open')).toBeInTheDocument();
  });

  it('shows raw HTML in the answer as text, not elements', () => {
    const { container } = renderWithTheme(
      <ChatMessage message={makeMessage({ content: 'Hi <img src=x onerror=alert(1)><iframe src="/"></iframe>' })} />,
    );
    expect(container.querySelector('img')).toBeNull();
    expect(container.querySelector('iframe')).toBeNull();
    expect(screen.getByTestId('message')).toHaveTextContent('<img src=x onerror=alert(1)>');
  });

  it('shows a loading indicator while generating with no content yet', () => {
    const { rerender } = renderWithTheme(<ChatMessage message={makeMessage({ id: 'm', status: 'generating' })} />);
    expect(screen.getByRole('progressbar', { name: 'Generating answer' })).toBeInTheDocument();
    expect(screen.getByTestId('message')).toHaveAttribute('data-status', 'generating');
    expect(screen.queryByRole('button', { name: 'Copy answer' })).toBeNull();

    rerender(<ChatMessage message={makeMessage({ id: 'm', status: 'complete', content: 'Done' })} />);
    expect(screen.queryByRole('progressbar', { name: 'Generating answer' })).toBeNull();
    expect(screen.getByTestId('message')).toHaveAttribute('data-status', 'complete');
  });

  it('streams text while generating', () => {
    renderWithTheme(<ChatMessage message={makeMessage({ status: 'generating', content: 'The top cust' })} />);
    expect(screen.getByTestId('message')).toHaveTextContent('The top cust');
  });

  it('shows a failed answer with its error', () => {
    renderWithTheme(
      <ChatMessage
        message={makeMessage({
          status: 'failed',
          content: '',
          error: { code: 'LLM_UNAVAILABLE', message: 'The model is unavailable.' },
        })}
      />,
    );
    expect(screen.getByRole('alert')).toHaveTextContent('The model is unavailable.');
    expect(screen.getByTestId('message')).toHaveAttribute('data-status', 'failed');
    expect(screen.queryByRole('progressbar')).toBeNull();
  });

  it('says "Stopped by you." for a cancelled answer and keeps the partial text', () => {
    renderWithTheme(
      <ChatMessage
        message={makeMessage({
          status: 'failed',
          content: 'The first half of the',
          error: { code: 'CANCELLED', message: 'Cancelled.' },
        })}
      />,
    );
    expect(screen.getByRole('alert')).toHaveTextContent('Stopped by you.');
    expect(screen.getByTestId('message')).toHaveTextContent('The first half of the');
  });

  it('offers Retry on a failed or stopped answer, and Regenerate on a finished one, when asked to', async () => {
    const onAskAgain = vi.fn();
    const failed = makeMessage({ id: 'a1', status: 'failed', error: { code: 'AGENT_ERROR', message: 'The model failed.' } });
    const { user, rerender } = renderWithTheme(<ChatMessage message={failed} onAskAgain={onAskAgain} />);
    await user.click(within(screen.getByRole('alert')).getByRole('button', { name: 'Retry' }));
    expect(onAskAgain).toHaveBeenLastCalledWith('a1');
    expect(screen.queryByRole('button', { name: 'Regenerate' })).toBeNull();

    const stopped = makeMessage({ id: 'a2', status: 'failed', content: 'Half', error: { code: 'CANCELLED', message: 'Cancelled.' } });
    rerender(<ChatMessage message={stopped} onAskAgain={onAskAgain} />);
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(onAskAgain).toHaveBeenLastCalledWith('a2');

    rerender(<ChatMessage message={makeMessage({ id: 'a3', content: 'Forty-two.' })} onAskAgain={onAskAgain} />);
    expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Regenerate' }));
    expect(onAskAgain).toHaveBeenLastCalledWith('a3');
    expect(onAskAgain).toHaveBeenCalledTimes(3);
  });

  it('offers neither Retry nor Regenerate while generating, on a question, or when not asked to', () => {
    const onAskAgain = vi.fn();
    const { rerender } = renderWithTheme(
      <ChatMessage message={makeMessage({ status: 'generating', content: 'Part' })} onAskAgain={onAskAgain} />,
    );
    const none = () => {
      expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull();
      expect(screen.queryByRole('button', { name: 'Regenerate' })).toBeNull();
    };
    none();
    rerender(<ChatMessage message={makeMessage({ role: 'user', content: 'Q' })} onAskAgain={onAskAgain} />);
    none();
    rerender(<ChatMessage message={makeMessage({ status: 'failed', error: { code: 'AGENT_ERROR', message: 'x' } })} />);
    none();
    rerender(<ChatMessage message={makeMessage({ content: 'Done.' })} />);
    none();
  });

  it('renders the charts as images with captions', () => {
    renderWithTheme(
      <ChatMessage
        message={makeMessage({
          content: 'Here is the chart.',
          charts: [{ id: 'c1', url: '/api/charts/c1.png', title: 'Revenue by month' }],
        })}
      />,
    );
    const img = screen.getByRole('img', { name: 'Revenue by month' });
    expect(img).toHaveAttribute('src', '/api/charts/c1.png');
    expect(img.closest('figure')).toHaveTextContent('Revenue by month');
  });

  it('does not repeat a chart the answer already shows', () => {
    renderWithTheme(
      <ChatMessage
        message={makeMessage({
          content: '![Revenue](/api/charts/c1.png)',
          charts: [
            { id: 'c1', url: '/api/charts/c1.png', title: 'Revenue' },
            { id: 'c2', url: '/api/charts/c2.png', title: 'Orders' },
          ],
        })}
      />,
    );
    expect(screen.getAllByRole('img')).toHaveLength(2);
    expect(screen.getAllByRole('img', { name: 'Revenue' })).toHaveLength(1);
    expect(screen.getByRole('img', { name: 'Orders' })).toBeInTheDocument();
  });

  it('does not load a chart whose address is off the server', () => {
    expect(chartsToShow({ content: '', charts: [{ id: 'x', url: 'https://evil.example/x.png', title: 'x' }] })).toHaveLength(1);
    const { container } = renderWithTheme(
      <ChatMessage message={makeMessage({ charts: [{ id: 'x', url: 'https://evil.example/x.png', title: 'x' }] })} />,
    );
    expect(container.querySelector('img')).toBeNull();
  });

  it('copies the answer and shows tokens and time', async () => {
    const { user } = renderWithTheme(
      <ChatMessage
        message={makeMessage({
          content: 'Answer **text**',
          tokensUsed: { prompt: 1000, completion: 234, total: 1234 },
          durationMs: 3200,
        })}
      />,
    );
    const writeText = vi.spyOn(navigator.clipboard, 'writeText');
    await user.click(screen.getByRole('button', { name: 'Copy answer' }));
    expect(writeText).toHaveBeenCalledWith('Answer **text**');
    expect(screen.getByText('1,234 tokens · 3.2 s')).toBeInTheDocument();
  });
});

function hexToRgb(color: string): string {
  if (color.startsWith('rgb')) return color;
  let hex = color.replace('#', '');
  if (hex.length === 3) hex = hex.split('').map((c) => c + c).join('');
  const n = parseInt(hex, 16);
  return `rgb(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255})`;
}
