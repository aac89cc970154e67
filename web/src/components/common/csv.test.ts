import { afterEach, describe, expect, it, vi } from 'vitest';
import { csvField, downloadCsv, downloadText, toCsv } from './csv';

describe('csvField', () => {
  it('leaves plain fields alone', () => {
    expect(csvField('abc')).toBe('abc');
    expect(csvField(42)).toBe('42');
    expect(csvField(null)).toBe('');
    expect(csvField(undefined)).toBe('');
    expect(csvField('')).toBe('');
  });

  it('quotes fields with commas, quotes, CR or LF and doubles the quotes (RFC 4180)', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('line1\nline2')).toBe('"line1\nline2"');
    expect(csvField('a\r\nb')).toBe('"a\r\nb"');
    expect(csvField('"')).toBe('""""');
  });

  it('defuses spreadsheet formulas but not numbers', () => {
    expect(csvField('=SUM(A1:A2)')).toBe("'=SUM(A1:A2)");
    expect(csvField('@cmd')).toBe("'@cmd");
    expect(csvField('+1 call me')).toBe("'+1 call me");
    expect(csvField('=HYPERLINK("x","y")')).toBe(`"'=HYPERLINK(""x"",""y"")"`);
    expect(csvField('-3.5')).toBe('-3.5');
    expect(csvField('+12')).toBe('+12');
    expect(csvField('-12%')).toBe('-12%');
    expect(csvField('=1', { escapeFormulas: false })).toBe('=1');
  });
});

describe('toCsv', () => {
  it('joins fields with commas and records with CRLF', () => {
    const csv = toCsv([
      ['name', 'revenue'],
      ['Acme, Inc.', '1200.50'],
      ['Bob "the builder"', '7'],
      ['multi\nline', ''],
    ]);
    expect(csv).toBe(
      'name,revenue\r\n"Acme, Inc.",1200.50\r\n"Bob ""the builder""",7\r\n"multi\nline",\r\n',
    );
  });

  it('is empty for no rows', () => {
    expect(toCsv([])).toBe('');
  });
});

/** A Blob's bytes as numbers (decoding it as text would drop a byte-order mark). */
async function blobBytes(blob: Blob): Promise<number[]> {
  return [...new Uint8Array(await blob.arrayBuffer())];
}

describe('downloadText / downloadCsv', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    // jsdom has neither: remove the stubs again.
    delete (URL as Partial<typeof URL>).createObjectURL;
    delete (URL as Partial<typeof URL>).revokeObjectURL;
  });

  function stubUrls() {
    const createObjectURL = vi.fn((blob: Blob) => {
      void blob;
      return 'blob:http://localhost/abc';
    });
    const revokeObjectURL = vi.fn();
    Object.defineProperty(URL, 'createObjectURL', { value: createObjectURL, configurable: true });
    Object.defineProperty(URL, 'revokeObjectURL', { value: revokeObjectURL, configurable: true });
    return { createObjectURL, revokeObjectURL };
  }

  it('downloads a Blob through an object URL and a temporary link', async () => {
    vi.useFakeTimers();
    const { createObjectURL, revokeObjectURL } = stubUrls();
    const clicked: HTMLAnchorElement[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this);
    });

    downloadCsv([
      ['a', 'b'],
      ['1', 'x,y'],
    ]);

    expect(createObjectURL).toHaveBeenCalledTimes(1);
    const blob = createObjectURL.mock.calls[0][0];
    expect(blob.type).toBe('text/csv;charset=utf-8');
    expect(await blobBytes(blob)).toEqual([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('a,b\r\n1,"x,y"\r\n')]);
    expect(clicked).toHaveLength(1);
    expect(clicked[0].download).toBe('table.csv');
    expect(clicked[0].href).toBe('blob:http://localhost/abc');
    expect(document.querySelector('a[download]')).toBeNull();
    vi.runAllTimers();
    expect(revokeObjectURL).toHaveBeenCalledWith('blob:http://localhost/abc');
    vi.useRealTimers();
  });

  it('starts the file with a byte-order mark, so a spreadsheet reads non-ASCII text as UTF-8', async () => {
    const { createObjectURL } = stubUrls();
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {});
    downloadCsv([
      ['city', 'note'],
      ['São Paulo', 'Größe: 日本'],
    ]);
    const bytes = await blobBytes(createObjectURL.mock.calls[0][0]);
    expect(bytes.slice(0, 3)).toEqual([0xef, 0xbb, 0xbf]);
    expect(new TextDecoder('utf-8', { ignoreBOM: true }).decode(new Uint8Array(bytes))).toBe(
      '\uFEFFcity,note\r\nSão Paulo,Größe: 日本\r\n',
    );
    // Only the file has it: the text of the table does not.
    expect(toCsv([['São']])).toBe('São\r\n');
  });

  it('uses the given file name', () => {
    stubUrls();
    const names: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      names.push(this.download);
    });
    downloadText('x', 'notes.txt', 'text/plain');
    expect(names).toEqual(['notes.txt']);
  });
});
