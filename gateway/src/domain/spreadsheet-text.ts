/**
 * Text a spreadsheet would run: Excel, LibreOffice and Google Sheets read a cell starting with `=`, `+`, `-` or `@`
 * (and, in some versions, a tab or a carriage return before one) as a formula, so a lead who names themselves
 * `=HYPERLINK(…)` would have it run on the computer of whoever opens the list's export (OWASP "CSV Injection").
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * A number written after Excel's text prefix, an apostrophe (`'+16135550135`, `'02134`), as exporters such as
 * Shopify's write phones and postcodes so that Excel keeps their plus and leading zeros: the number, as Excel shows it.
 */
const MARKED_NUMBER = /^'([+(]?\d[\d\s().-]*)$/;

/**
 * A cell as an import reads it: one written after the apostrophe that keeps a spreadsheet from running it (a formula
 * character or another apostrophe after it, as `spreadsheetCell` writes them) or from dropping a number's plus and
 * leading zeros (`'+16135550135`, `'02134`) loses that one apostrophe. Any other apostrophe is the text's own: a name
 * such as `'t Hart` keeps it.
 */
export function unmarkedCell(cell: string): string {
  if (!cell.startsWith("'")) return cell;
  const rest = cell.slice(1);
  if (FORMULA_START.test(rest) || rest.startsWith("'")) return rest;
  return MARKED_NUMBER.exec(cell)?.[1] ?? cell;
}

/**
 * A text for a cell of an exported file: one a spreadsheet would run as a formula gets the apostrophe OWASP advises,
 * so it shows as text; so does one that starts with an apostrophe the import would take as such a mark, so that the
 * file imports back as the very text it was written from (`unmarkedCell` takes exactly one off).
 */
export function spreadsheetCell(text: string): string {
  return FORMULA_START.test(text) || unmarkedCell(text) !== text ? `'${text}` : text;
}
