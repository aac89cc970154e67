import { describe, expect, it } from 'vitest';
import { screen, within } from '@testing-library/react';
import { ApiProvider } from '../../api/ApiContext';
import { createApiClient, type Schemas } from '../../api/client';
import { errorResponse, fakeNetwork, jsonResponse, type Handler } from '../../api/fakeFetch';
import { createQueryClient } from '../../hooks/queries';
import { makeMessage, renderWithTheme } from '../../test/render';
import ChatMessage from './ChatMessage';
import ReportDialog, { reportPath } from './ReportDialog';

const SCRIPT = '<script>alert(1)</script>';

const REPORT: Schemas['ReportPublic'] = {
  title: 'Revenue by region in 2024?',
  question: 'Revenue by region in 2024?',
  createdAt: '2026-11-26T17:00:00Z',
  status: 'complete',
  blocks: [
    { type: 'markdown', text: `**North** leads. ${SCRIPT} <img src=x onerror="alert(1)">` },
    {
      type: 'chart',
      chartId: 'c1',
      title: 'Revenue by region',
      chartType: 'bar',
      spec: { mark: 'bar' },
      imageUrl: '/api/charts/c1.png',
    },
    {
      type: 'table',
      title: 'Revenue per region',
      columns: ['name', 'revenue'],
      rows: [
        ['North', 1200],
        [SCRIPT, null],
      ],
      rowCount: 40,
      truncated: true,
    },
    { type: 'assumptions', items: ['2024 means the calendar year'] },
    { type: 'caveats', items: ['Maximum revision attempts reached'] },
    {
      type: 'lineage',
      datasets: ['orders', 'regions'],
      joins: [{ from: 'orders', to: 'regions', on: 'region_id' }],
      filters: ['year = 2024'],
      timeWindow: '2024',
      grain: 'region',
      rowCount: 40,
    },
    {
      type: 'verification',
      passed: false,
      checks: [
        { name: 'fan_out', passed: true, message: '' },
        { name: 'empty_result', passed: false, message: 'No rows' },
      ],
    },
    { type: 'sql', sql: 'SELECT name, SUM(amount) FROM orders GROUP BY name', stepId: 1 },
  ],
};

function renderDialog(handler: Handler, ui?: React.ReactElement) {
  const network = fakeNetwork(handler);
  const client = createApiClient({ fetch: network.fetch, baseUrl: 'http://test' });
  const queryClient = createQueryClient({ retry: false });
  const closed: string[] = [];
  const view = renderWithTheme(
    <ApiProvider client={client} queryClient={queryClient}>
      {ui ?? <ReportDialog chatId="chat-1" messageId="m1" onClose={() => closed.push('closed')} />}
    </ApiProvider>,
  );
  return { ...view, network, closed };
}

describe('ReportDialog', () => {
  it('renders every block of the report and offers the HTML file', async () => {
    const { network, user, closed } = renderDialog((request) =>
      request.path === reportPath('chat-1', 'm1') ? jsonResponse(200, { data: REPORT }) : errorResponse(404, 'NOT_FOUND', 'no'),
    );
    const dialog = await screen.findByRole('dialog', { name: 'Revenue by region in 2024?' });
    expect(network.calls()).toEqual(['GET /api/data-agent/chats/chat-1/messages/m1/report']);
    expect(network.requests[0].url).toContain('format=json');

    // Markdown through the page's renderer: formatting kept, raw HTML shown as text, never run.
    const markdown = await within(dialog).findByTestId('report-block-markdown');
    expect(markdown.querySelector('strong')).toHaveTextContent('North');
    expect(markdown).toHaveTextContent(SCRIPT);
    expect(dialog.querySelector('script')).toBeNull();
    expect(dialog.querySelector('[onerror]')).toBeNull();

    const image = within(dialog).getByRole('img', { name: 'Revenue by region' });
    expect(image).toHaveAttribute('src', '/api/charts/c1.png');

    const table = within(within(dialog).getByTestId('report-block-table')).getByRole('table');
    expect(within(table).getAllByRole('columnheader').map((c) => c.textContent)).toEqual(['name', 'revenue']);
    expect(within(table).getByText(SCRIPT)).toBeInTheDocument();
    expect(within(table).getByText('NULL')).toBeInTheDocument();
    expect(dialog).toHaveTextContent('40 rows; the first 2 shown');

    expect(within(dialog).getByTestId('report-block-assumptions')).toHaveTextContent('2024 means the calendar year');
    expect(within(dialog).getByTestId('report-block-caveats')).toHaveTextContent('Maximum revision attempts reached');
    const lineage = within(dialog).getByTestId('report-block-lineage');
    expect(lineage).toHaveTextContent('orders, regions');
    expect(lineage).toHaveTextContent('orders → regions on region_id');
    expect(lineage).toHaveTextContent('Grain');
    const verification = within(dialog).getByTestId('report-block-verification');
    expect(verification).toHaveTextContent('The checks failed.');
    expect(verification).toHaveTextContent('✗ empty_result: No rows');
    expect(within(dialog).getByTestId('report-block-sql')).toHaveTextContent('SQL of step 1');

    const download = within(dialog).getByRole('link', { name: 'Download HTML' });
    expect(download).toHaveAttribute('href', '/api/data-agent/chats/chat-1/messages/m1/report?format=html');
    expect(download).toHaveAttribute('download');

    await user.click(within(dialog).getByRole('button', { name: 'Close' }));
    expect(closed).toEqual(['closed']);
  });

  it("shows the server's sentence when there is no report", async () => {
    renderDialog(() =>
      errorResponse(409, 'CONFLICT', 'Only a complete answer can be turned into a report; this one is failed.'),
    );
    const dialog = await screen.findByRole('dialog');
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(
      'Only a complete answer can be turned into a report; this one is failed.',
    );
  });

  it('opens from a complete answer only', async () => {
    const answer = makeMessage({ id: 'm1', chatId: 'chat-1', content: 'North leads.' });
    const { user, network } = renderDialog(
      () => jsonResponse(200, { data: REPORT }),
      <>
        <ChatMessage message={answer} />
        <ChatMessage message={makeMessage({ id: 'm2', status: 'generating' })} />
        <ChatMessage message={makeMessage({ id: 'm3', status: 'failed' })} />
      </>,
    );
    expect(screen.getAllByRole('button', { name: 'Report' })).toHaveLength(1);
    expect(network.calls()).toEqual([]); // nothing is fetched until the report is asked for
    await user.click(screen.getByRole('button', { name: 'Report' }));
    expect(await screen.findByRole('dialog', { name: 'Revenue by region in 2024?' })).toBeInTheDocument();
    expect(network.calls()).toEqual(['GET /api/data-agent/chats/chat-1/messages/m1/report']);
  });
});
