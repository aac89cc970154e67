import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, within } from '@testing-library/react';
import { renderWithTheme } from '../../test/render';
import type { ToolCallView } from '../../types';
import ToolCallAccordion from './ToolCallAccordion';
import { formatDuration, getToolLabel } from './toolLabels';

const query: ToolCallView = {
  id: 'call_1',
  name: 'query_database',
  args: { sql: 'SELECT name, SUM(total) AS revenue FROM orders GROUP BY name' },
  result: '| name | revenue |\n|---|---|\n| Acme | 1200 |',
  isError: false,
  durationMs: 420,
};

describe('getToolLabel', () => {
  it('uses seed 000 labels and falls back to the name', () => {
    expect(getToolLabel('query_database')).toBe('Analyzed data');
    expect(getToolLabel('get_dataset_details')).toBe('Checked dataset details');
    expect(getToolLabel('get_sample_data')).toBe('Viewed sample data');
    expect(getToolLabel('run_python')).toBe('Ran Python analysis');
    expect(getToolLabel('list_datasets')).toBe('Listed datasets');
    expect(getToolLabel('make_coffee')).toBe('make_coffee');
    expect(getToolLabel('toString')).toBe('toString');
  });

  it('formats durations', () => {
    expect(formatDuration(420)).toBe('420 ms');
    expect(formatDuration(0)).toBe('0 ms');
    expect(formatDuration(2500)).toBe('2.5 s');
    expect(formatDuration(42000)).toBe('42 s');
    expect(formatDuration(125000)).toBe('2 min 5 s');
    expect(formatDuration(undefined)).toBeNull();
  });
});

describe('ToolCallAccordion', () => {
  afterEach(() => vi.restoreAllMocks());

  it.each([
    ['query_database', 'Analyzed data'],
    ['get_dataset_details', 'Checked dataset details'],
    ['get_sample_data', 'Viewed sample data'],
    ['run_python', 'Ran Python analysis'],
    ['list_datasets', 'Listed datasets'],
    ['something_new', 'something_new'],
  ])('labels %s as "%s"', (name, label) => {
    renderWithTheme(<ToolCallAccordion toolCall={{ id: 'x', name, args: {}, result: 'ok' }} />);
    const summary = screen.getByRole('button', { name: new RegExp(`^${label}`) });
    expect(summary).toHaveAttribute('aria-expanded', 'false');
  });

  it('shows the SQL highlighted, with a copy button, and the result table when opened', async () => {
    const { user, container } = renderWithTheme(<ToolCallAccordion toolCall={query} />);
    await user.click(screen.getByRole('button', { name: /^Analyzed data/ }));
    expect(screen.getByRole('button', { name: /^Analyzed data/ })).toHaveAttribute('aria-expanded', 'true');
    const code = container.querySelector('code.language-sql');
    expect(code).toHaveTextContent('SELECT name, SUM(total) AS revenue FROM orders GROUP BY name');
    expect(code!.querySelectorAll('.token').length).toBeGreaterThan(0);
    expect(screen.getByText('Result')).toBeInTheDocument();
    const table = screen.getByRole('table');
    expect(within(table).getByRole('cell', { name: 'Acme' })).toBeInTheDocument();
    expect(screen.getByText('420 ms')).toBeInTheDocument();
  });

  it('copies the SQL', async () => {
    const { user } = renderWithTheme(<ToolCallAccordion toolCall={query} defaultExpanded />);
    const writeText = vi.spyOn(navigator.clipboard, 'writeText');
    await user.click(screen.getByRole('button', { name: 'Copy SQL' }));
    expect(writeText).toHaveBeenCalledWith(query.args.sql);
  });

  it('shows run_python code as python with "Copy code"', () => {
    const { container } = renderWithTheme(
      <ToolCallAccordion
        toolCall={{ id: 'p', name: 'run_python', args: { code: 'import pandas as pd\nprint(1)' }, result: '1' }}
        defaultExpanded
      />,
    );
    expect(container.querySelector('code.language-python')).toHaveTextContent('import pandas as pd');
    expect(screen.getByRole('button', { name: 'Copy code' })).toBeInTheDocument();
  });

  it('shows other arguments as JSON', () => {
    const { container } = renderWithTheme(
      <ToolCallAccordion
        toolCall={{ id: 'd', name: 'get_dataset_details', args: { dataset: 'orders' }, result: 'Columns: id, total' }}
        defaultExpanded
      />,
    );
    expect(screen.getByText('Arguments')).toBeInTheDocument();
    expect(container.querySelector('code.language-json')).toHaveTextContent('"dataset": "orders"');
    expect(screen.getByText('Columns: id, total')).toBeInTheDocument();
  });

  it('shows a running call with a small progress and no result yet', async () => {
    const { user } = renderWithTheme(
      <ToolCallAccordion toolCall={{ id: 'r', name: 'query_database', args: { sql: 'SELECT 1' } }} />,
    );
    expect(screen.getByRole('progressbar', { name: 'Analyzed data: running' })).toBeInTheDocument();
    expect(screen.getByTestId('tool-call')).toHaveAttribute('data-state', 'running');
    await user.click(screen.getByRole('button', { name: /^Analyzed data/ }));
    expect(screen.getByText('Running…')).toBeInTheDocument();
  });

  it('shows a failed call with an error icon, "failed" and the error as text', async () => {
    const { user } = renderWithTheme(
      <ToolCallAccordion
        toolCall={{
          id: 'e',
          name: 'query_database',
          args: { sql: 'SELEC 1' },
          result: 'Error (SQL_ERROR): syntax error at or near "SELEC" | **not markdown**',
          isError: true,
        }}
      />,
    );
    const summary = screen.getByRole('button', { name: /^Analyzed data/ });
    expect(summary).toHaveTextContent('failed');
    expect(screen.getByTestId('ErrorIcon')).toBeInTheDocument();
    expect(screen.queryByRole('progressbar')).not.toBeInTheDocument();
    await user.click(summary);
    const pre = screen.getByText(/syntax error at or near/);
    expect(pre.tagName).toBe('PRE');
    expect(pre).toHaveTextContent('**not markdown**');
  });

  it('can be opened and closed with the keyboard', async () => {
    const { user } = renderWithTheme(<ToolCallAccordion toolCall={query} />);
    screen.getByRole('button', { name: /^Analyzed data/ }).focus();
    await user.keyboard('{Enter}');
    expect(screen.getByRole('button', { name: /^Analyzed data/ })).toHaveAttribute('aria-expanded', 'true');
    await user.keyboard(' ');
    expect(screen.getByRole('button', { name: /^Analyzed data/ })).toHaveAttribute('aria-expanded', 'false');
  });
});
