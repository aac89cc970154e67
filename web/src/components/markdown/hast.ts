import type { ExtraProps } from 'react-markdown';

/** The hast element react-markdown passes to a component as `node`. */
export type HastElement = NonNullable<ExtraProps['node']>;
type HastChild = HastElement['children'][number];

/** The text of a hast node and its descendants (what a reader sees, without markup). */
export function hastText(node: HastElement | HastChild | undefined): string {
  if (!node) return '';
  if (node.type === 'text') return node.value;
  if (node.type === 'element') {
    if (node.tagName === 'br') return '\n';
    if (node.tagName === 'img') return String(node.properties?.alt ?? '');
    return node.children.map((child) => hastText(child)).join('');
  }
  return '';
}

function elements(node: HastElement, tagNames: readonly string[]): HastElement[] {
  const found: HastElement[] = [];
  for (const child of node.children) {
    if (child.type !== 'element') continue;
    if (tagNames.includes(child.tagName)) found.push(child);
    else if (child.tagName === 'thead' || child.tagName === 'tbody' || child.tagName === 'tfoot') {
      found.push(...elements(child, tagNames));
    }
  }
  return found;
}

/** A table's cells as rows of text, header row first (for CSV). */
export function tableRows(table: HastElement | undefined): string[][] {
  if (!table) return [];
  return elements(table, ['tr']).map((row) => elements(row, ['th', 'td']).map((cell) => hastText(cell).trim()));
}
