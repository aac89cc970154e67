// CSV for the "Download CSV" button of a result table (RFC 4180): fields separated by
// commas, records by CRLF; a field holding a comma, a double quote, CR or LF is quoted and
// its double quotes doubled. The downloaded file is UTF-8 with a byte-order mark.

export interface CsvOptions {
  /**
   * Defuse spreadsheet formulas (CSV injection): a text field starting with `=`, `+`, `-`,
   * `@`, a tab or CR is prefixed with `'`, so a spreadsheet shows it instead of running it.
   * Numbers such as `-3.5` or `+1` are left alone. Default: true (the cells come from model
   * output and the database, neither of which the person reviewed).
   */
  escapeFormulas?: boolean;
}

const FORMULA_START = /^[=+\-@\t\r]/;
const NUMBER = /^[+-]?(\d+([.,]\d*)?|[.,]\d+)([eE][+-]?\d+)?%?$/;

/** One field, quoted when it has to be. */
export function csvField(value: unknown, options: CsvOptions = {}): string {
  let text = value === null || value === undefined ? '' : String(value);
  if ((options.escapeFormulas ?? true) && FORMULA_START.test(text) && !NUMBER.test(text.trim())) {
    text = `'${text}`;
  }
  if (/[",\r\n]/.test(text)) {
    return `"${text.replace(/"/g, '""')}"`;
  }
  return text;
}

/** Rows of cells to CSV text: CRLF between records, and a CRLF after the last one. */
export function toCsv(rows: readonly (readonly unknown[])[], options: CsvOptions = {}): string {
  if (rows.length === 0) return '';
  return rows.map((row) => row.map((cell) => csvField(cell, options)).join(',')).join('\r\n') + '\r\n';
}

/**
 * Offer `text` as a file download: a Blob and an object URL clicked through a temporary
 * link (no data: URL, which the Content-Security-Policy would not need but some browsers cap).
 */
export function downloadText(text: string, filename: string, type = 'text/csv;charset=utf-8'): void {
  const blob = new Blob([text], { type });
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.rel = 'noopener';
  link.style.display = 'none';
  document.body.appendChild(link);
  try {
    link.click();
  } finally {
    link.remove();
    // Revoke after the click has been handled; revoking at once can cancel the download.
    setTimeout(() => URL.revokeObjectURL(url), 0);
  }
}

/**
 * The byte-order mark a downloaded CSV starts with: without it spreadsheet programs (Excel)
 * read the file in the system's legacy code page and garble non-ASCII text ("São" as "SÃ£o").
 */
export const BYTE_ORDER_MARK = '\uFEFF';

/** Download rows of cells as `filename` (default `table.csv`): UTF-8 with a byte-order mark. */
export function downloadCsv(rows: readonly (readonly unknown[])[], filename = 'table.csv'): void {
  downloadText(BYTE_ORDER_MARK + toCsv(rows), filename);
}
