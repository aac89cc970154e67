import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';

/** Markdown cut into its top-level blocks; `starts[i]` is where `blocks[i]` begins. */
export interface Blocks {
  source: string;
  blocks: string[];
  starts: number[];
}

/**
 * The markdown's top-level blocks (paragraphs, headings, whole lists, tables, code), as the
 * source text of each, so that a streamed answer re-renders only the block that grew.
 *
 * Given the previous split of a text this one extends (a streamed answer), only the last
 * block and what follows it are parsed again: the blocks before it are complete, and
 * parsing the whole answer on every piece costs tens of milliseconds once it is long.
 * Reference-style links and footnotes tie blocks together: markdown that has them is one
 * block, rendered whole.
 */
export function splitBlocks(source: string, previous?: Blocks): Blocks {
  if (previous && previous.blocks.length > 1 && source.startsWith(previous.source)) {
    const keep = previous.blocks.length - 1;
    const offset = previous.starts[keep];
    const tail = parseBlocks(source.slice(offset), offset);
    if (tail !== null) {
      return {
        source,
        blocks: [...previous.blocks.slice(0, keep), ...tail.blocks],
        starts: [...previous.starts.slice(0, keep), ...tail.starts],
      };
    }
  }
  const whole = parseBlocks(source, 0);
  return whole ? { ...whole, source } : { source, blocks: [source], starts: [0] };
}

/** The blocks of `text` (which begins at `offset` of the whole), or null when they are tied. */
function parseBlocks(text: string, offset: number): Blocks | null {
  const tree = fromMarkdown(text, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
  const blocks: string[] = [];
  const starts: number[] = [];
  for (const node of tree.children) {
    if (node.type === 'definition' || node.type === 'footnoteDefinition') return null;
    const start = node.position?.start.offset;
    const end = node.position?.end.offset;
    if (start === undefined || end === undefined) return null;
    blocks.push(text.slice(start, end));
    starts.push(offset + start);
  }
  return { source: text, blocks, starts };
}
