import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, within } from '@testing-library/react';
import { renderWithTheme } from '../../test/render';
import * as csv from '../common/csv';
import Markdown from './Markdown';

const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

describe('Markdown', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('renders GFM: emphasis, lists, strikethrough, task lists', () => {
    const { container } = renderWithTheme(
      <Markdown>{'**bold** and *it*\n\n- one\n- two\n\n~~gone~~\n\n- [x] done'}</Markdown>,
    );
    expect(container.querySelector('strong')).toHaveTextContent('bold');
    expect(container.querySelector('em')).toHaveTextContent('it');
    expect(screen.getAllByRole('listitem').length).toBeGreaterThanOrEqual(2);
    expect(container.querySelector('del')).toHaveTextContent('gone');
    expect(container.querySelector('input[type="checkbox"]')).toBeChecked();
  });

  it('highlights fenced code with the fence language and offers a copy button', () => {
    const { container } = renderWithTheme(<Markdown>{'```sql\nSELECT name FROM customers;\n```'}</Markdown>);
    const code = container.querySelector('code.language-sql');
    expect(code).not.toBeNull();
    expect(code).toHaveTextContent('SELECT name FROM customers;');
    // Prism split it into coloured tokens: SELECT and FROM are keywords.
    const tokens = Array.from(container.querySelectorAll<HTMLElement>('.token'));
    const keyword = tokens.find((el) => el.textContent === 'SELECT');
    expect(keyword).toBeDefined();
    expect(keyword!.style.color).not.toBe('');
    expect(tokens.find((el) => el.textContent === 'FROM')!.style.color).toBe(keyword!.style.color);
    expect(screen.getByRole('button', { name: 'Copy code' })).toBeInTheDocument();
  });

  it('shows code in an unknown language unhighlighted, and inline code as <code>', () => {
    const { container } = renderWithTheme(<Markdown>{'Use `x = 1`.\n\n```cobol\nDISPLAY "HI".\n```'}</Markdown>);
    expect(screen.getByText('x = 1').tagName).toBe('CODE');
    expect(container.querySelectorAll('.token')).toHaveLength(0);
    expect(container).toHaveTextContent('DISPLAY "HI".');
  });

  it('highlights python in dark mode too', () => {
    const { container } = renderWithTheme(<Markdown>{'```py\ndef f():\n    return 1\n```'}</Markdown>, { mode: 'dark' });
    expect(container.querySelector('code.language-python')).not.toBeNull();
    const def = Array.from(container.querySelectorAll<HTMLElement>('.token')).find((el) => el.textContent === 'def');
    expect(def?.style.color).toBeTruthy();
    // one-dark's background, not one-light's.
    expect(container.querySelector('pre')!.style.background).toBe('rgb(40, 44, 52)');
  });

  it('renders tables as MUI tables that download as CSV', async () => {
    const download = vi.spyOn(csv, 'downloadCsv').mockImplementation(() => {});
    const md = '| customer | revenue |\n|:--|--:|\n| Acme, Inc. | 1200 |\n| Bob "B" | 7 |';
    const { user } = renderWithTheme(<Markdown>{md}</Markdown>);
    const table = screen.getByRole('table');
    expect(table).toHaveClass('MuiTable-root');
    expect(within(table).getAllByRole('columnheader').map((c) => c.textContent)).toEqual(['customer', 'revenue']);
    expect(within(table).getAllByRole('cell')[1]).toHaveClass('MuiTableCell-alignRight');
    const button = screen.getByRole('button', { name: 'Download table as CSV' });
    expect(button).toHaveTextContent('Download CSV');
    await user.click(button);
    expect(download).toHaveBeenCalledWith([
      ['customer', 'revenue'],
      ['Acme, Inc.', '1200'],
      ['Bob "B"', '7'],
    ]);
    expect(csv.toCsv(download.mock.calls[0][0])).toBe('customer,revenue\r\n"Acme, Inc.",1200\r\n"Bob ""B""",7\r\n');
  });

  it('gives every table its own button', () => {
    renderWithTheme(<Markdown>{'| a |\n|---|\n| 1 |\n\ntext\n\n| b |\n|---|\n| 2 |'}</Markdown>);
    expect(screen.getAllByRole('table')).toHaveLength(2);
    expect(screen.getAllByRole('button', { name: 'Download table as CSV' })).toHaveLength(2);
  });

  it('shows same-origin and base64 images', () => {
    renderWithTheme(<Markdown>{`![Revenue chart](/api/charts/abc.png)\n\n![inline](${PNG})`}</Markdown>);
    expect(screen.getByRole('img', { name: 'Revenue chart' })).toHaveAttribute('src', '/api/charts/abc.png');
    expect(screen.getByRole('img', { name: 'inline' })).toHaveAttribute('src', PNG);
  });

  it('does not load images from elsewhere: a placeholder with a link instead', () => {
    const { container } = renderWithTheme(
      <Markdown>{'![pixel](https://tracker.example/p.gif)\n\n![svg](data:image/svg+xml;base64,PHN2Zz4=)\n\n![proto](//evil.example/x.png)'}</Markdown>,
    );
    expect(container.querySelector('img')).toBeNull();
    const placeholders = screen.getAllByTestId('image-placeholder');
    expect(placeholders).toHaveLength(3);
    expect(placeholders[0]).toHaveTextContent('Image not loaded: https://tracker.example/p.gif');
    const link = within(placeholders[0]).getByRole('link', { name: 'https://tracker.example/p.gif' });
    expect(link).toHaveAttribute('rel', 'noopener noreferrer nofollow');
    expect(link).toHaveAttribute('target', '_blank');
    expect(placeholders[1]).toHaveTextContent('Image not loaded');
    expect(within(placeholders[1]).queryByRole('link')).toBeNull();
  });

  it('opens off-server links in a new tab without referrer, same-origin ones normally', () => {
    renderWithTheme(<Markdown>{'[docs](https://example.com/docs) and [chat](/agent/123) and [top](#top)'}</Markdown>);
    const external = screen.getByRole('link', { name: 'docs' });
    expect(external).toHaveAttribute('href', 'https://example.com/docs');
    expect(external).toHaveAttribute('target', '_blank');
    expect(external).toHaveAttribute('rel', 'noopener noreferrer nofollow');
    const internal = screen.getByRole('link', { name: 'chat' });
    expect(internal).toHaveAttribute('href', '/agent/123');
    expect(internal).not.toHaveAttribute('target');
    expect(screen.getByRole('link', { name: 'top' })).not.toHaveAttribute('target');
  });

  it('neutralises javascript: links', () => {
    const { container } = renderWithTheme(
      <Markdown>{'[click me](javascript:alert(1)) [again](JAVASCRIPT:alert(2)) <javascript:alert(3)>'}</Markdown>,
    );
    expect(screen.queryByRole('link', { name: 'click me' })).toBeNull();
    expect(screen.getByText('click me')).toBeInTheDocument();
    for (const el of Array.from(container.querySelectorAll('[href]'))) {
      expect(el.getAttribute('href')?.toLowerCase()).not.toContain('javascript');
    }
  });

  it('shows raw HTML as text, never as elements', () => {
    const { container } = renderWithTheme(
      <Markdown>{'Hello <img src="x" onerror="alert(1)"> <script>alert(2)</script>\n\n<div onclick="x()">block</div>\n\n<b>bold?</b>'}</Markdown>,
    );
    expect(container.querySelector('img')).toBeNull();
    expect(container.querySelector('script')).toBeNull();
    expect(container.querySelector('[onclick]')).toBeNull();
    expect(container.querySelector('b')).toBeNull();
    expect(container).toHaveTextContent('<img src="x" onerror="alert(1)">');
    expect(container).toHaveTextContent('<script>alert(2)</script>');
    expect(container).toHaveTextContent('<b>bold?</b>');
  });

  it('turns model headings into h3 and below', () => {
    renderWithTheme(<Markdown>{'# Title\n\n## Sub'}</Markdown>);
    expect(screen.getByRole('heading', { name: 'Title' }).tagName).toBe('H3');
    expect(screen.getByRole('heading', { name: 'Sub' }).tagName).toBe('H4');
  });
});
