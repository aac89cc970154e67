// How well the page keeps up with a long streamed answer: the same scripted answer (40
// sections of text, tables and code, about 18,000 characters in about 1,000 pieces) read
// once by a plain client (Node's fetch, no rendering) and once in the page, in one run.
// Writes BENCH_OUT (JSON) for benchmarks/web_stream_bench.py.
import { writeFileSync } from 'node:fs';
import { splitBlocks } from '../src/components/markdown/blocks';
import { expect, lastAnswer, newChat, signInQuickly, stack, test } from '../e2e/fixtures';

const QUESTION = 'Write the long report, please';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

interface Timing {
  firstToLastMs: number;
}

async function plainClient(baseUrl: string): Promise<Timing> {
  const login = await fetch(`${baseUrl}/api/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(stack().admin),
  });
  const token = (await login.json()).data.accessToken as string;
  const auth = { Authorization: `Bearer ${token}` };
  const ontologies = await (await fetch(`${baseUrl}/api/ontologies`, { headers: auth })).json();
  const chat = await (
    await fetch(`${baseUrl}/api/data-agent/chats`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ ontologyId: ontologies.data[0].id }),
    })
  ).json();
  const pair = await (
    await fetch(`${baseUrl}/api/data-agent/chats/${chat.data.id}/messages`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ content: QUESTION }),
    })
  ).json();
  const stream = await fetch(
    `${baseUrl}/api/data-agent/chats/${chat.data.id}/messages/${pair.data.assistantMessage.id}/stream`,
    { method: 'POST', headers: { ...auth, Accept: 'text/event-stream' } },
  );
  const reader = stream.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let first = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    if (!first && text.includes('event: message_chunk')) first = performance.now();
    if (text.includes('event: message_complete')) break;
  }
  await reader.cancel();
  // Give the server a moment to finish the run before the next one (one answer per user).
  await new Promise((resolve) => setTimeout(resolve, 300));
  return { firstToLastMs: performance.now() - first };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

test('a long streamed answer: the page against a plain client', async ({ page }) => {
  const plain: number[] = [];
  for (let i = 0; i < ROUNDS; i += 1) plain.push((await plainClient(stack().baseUrl)).firstToLastMs);

  await page.addInitScript(() => {
    const tasks: number[] = [];
    (window as unknown as { __longTasks: number[] }).__longTasks = tasks;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) tasks.push(entry.duration);
    }).observe({ type: 'longtask', buffered: true });
  });
  await signInQuickly(page, stack().admin);
  const inPage: number[] = [];
  const longTaskTotal: number[] = [];
  const longTaskMax: number[] = [];
  for (let i = 0; i < ROUNDS; i += 1) {
    await page.goto('/agent');
    await newChat(page);
    await page.evaluate(() => {
      (window as unknown as { __longTasks: number[] }).__longTasks.length = 0;
    });
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill(QUESTION);
    await box.press('Enter');
    const answer = lastAnswer(page);
    await expect(answer).toContainText('Section 1', { timeout: 60_000 });
    const start = await page.evaluate(() => performance.now());
    await expect(answer).toHaveAttribute('data-status', 'complete', { timeout: 120_000 });
    await expect(answer).toContainText('Section 40');
    const end = await page.evaluate(() => performance.now());
    inPage.push(end - start);
    const tasks = await page.evaluate(() => (window as unknown as { __longTasks: number[] }).__longTasks);
    longTaskTotal.push(tasks.reduce((a, b) => a + b, 0));
    longTaskMax.push(Math.max(0, ...tasks));
  }
  // What one full parse of the answer's markdown costs (here in Node): what the page would
  // pay for every piece if it split the whole answer each time.
  const chatId = new URL(page.url()).pathname.split('/').pop();
  const chat = await (await page.request.get(`/api/data-agent/chats/${chatId}`)).json();
  const markdown: string = chat.data.messages.at(-1).content;
  const parses = 10;
  const parseStart = performance.now();
  for (let i = 0; i < parses; i += 1) splitBlocks(markdown);
  const fullParseMs = (performance.now() - parseStart) / parses;
  const result = {
    rounds: ROUNDS,
    answerChars: (await lastAnswer(page).textContent())?.length ?? 0,
    markdownChars: markdown.length,
    fullParseMs,
    plainClientFirstToLastMs: median(plain),
    pageFirstToCompleteMs: median(inPage),
    pageOverPlainRatio: median(inPage) / median(plain),
    pageLongTasksTotalMs: median(longTaskTotal),
    pageLongestTaskMs: median(longTaskMax),
  };
  console.log(JSON.stringify(result));
  if (process.env.BENCH_OUT) writeFileSync(process.env.BENCH_OUT, JSON.stringify(result, null, 2));
});
