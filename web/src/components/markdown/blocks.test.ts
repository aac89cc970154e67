import { splitBlocks } from './blocks';

const blocksOf = (source: string) => splitBlocks(source).blocks;

describe('splitBlocks', () => {
  it('cuts at top-level blocks, keeping lists, tables and fenced code whole', () => {
    const source = [
      '# Title',
      'A paragraph\non two lines.',
      '- one\n\n  still one\n\n- two',
      '| a | b |\n|---|---|\n| 1 | 2 |',
      '```sql\nSELECT 1\n\nFROM x\n```',
    ].join('\n\n');
    expect(blocksOf(source)).toEqual([
      '# Title',
      'A paragraph\non two lines.',
      '- one\n\n  still one\n\n- two',
      '| a | b |\n|---|---|\n| 1 | 2 |',
      '```sql\nSELECT 1\n\nFROM x\n```',
    ]);
  });

  it('keeps markdown with reference links or footnotes in one piece', () => {
    const withReference = 'See [the docs][d].\n\n[d]: /docs';
    expect(blocksOf(withReference)).toEqual([withReference]);
    const withFootnote = 'A claim.[^1]\n\n[^1]: The source.';
    expect(blocksOf(withFootnote)).toEqual([withFootnote]);
  });

  it('gives an unfinished fence (mid-stream) as the last block', () => {
    expect(blocksOf('Text.\n\n```python\nprint(1')).toEqual(['Text.', '```python\nprint(1']);
  });

  it('has no blocks for empty text', () => {
    expect(blocksOf('')).toEqual([]);
  });

  it('splits a growing text as it would the whole, parsing only the end again', () => {
    const pieces = ['# Title\n\nFirst para', 'graph.\n\n- a\n', '- b\n\n| x |\n|---|\n| 1 |', '\n| 2 |\n\nEnd.'];
    let text = '';
    let split = splitBlocks('');
    for (const piece of pieces) {
      text += piece;
      const next = splitBlocks(text, split);
      expect(next.blocks).toEqual(splitBlocks(text).blocks);
      expect(next.starts).toEqual(splitBlocks(text).starts);
      // The blocks before the last are the very same strings: their renders are kept.
      for (let i = 0; i < split.blocks.length - 1; i += 1) expect(next.blocks[i]).toBe(split.blocks[i]);
      split = next;
    }
    expect(split.blocks).toEqual(['# Title', 'First paragraph.', '- a\n- b', '| x |\n|---|\n| 1 |\n| 2 |', 'End.']);
  });

  it('starts afresh when the text is not a continuation, or a late definition ties it', () => {
    const first = splitBlocks('One.\n\nTwo.');
    expect(splitBlocks('Other.\n\nText.', first).blocks).toEqual(['Other.', 'Text.']);
    const tied = splitBlocks('See [docs][d].\n\nMore.\n\n[d]: /docs', first);
    expect(tied.blocks).toEqual(['See [docs][d].\n\nMore.\n\n[d]: /docs']);
  });
});
