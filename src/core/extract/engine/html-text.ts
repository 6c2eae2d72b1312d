import { collapseWhitespace, DocumentLimitError, parseHtml, visibleText } from './dom.js';

/**
 * A value holding HTML as the text a reader reads (the `plainText` transform): tags dropped, character
 * references decoded, block boundaries as spaces, whitespace collapsed. JSON-LD descriptions hold markup
 * (`<p>A <strong>steel</strong> kettle &amp; lid.</p>`). The value is parsed within the thread's document
 * limits, as a page is (a script's text was never parsed with the page): past them it has no text (null).
 */
export function htmlToText(html: string): string | null {
  // Nothing to decode or drop: the common case costs one scan.
  if (!/[<&]/.test(html)) return collapseWhitespace(html);
  try {
    return visibleText(parseHtml(html));
  } catch (error) {
    if (error instanceof DocumentLimitError) return null;
    throw error;
  }
}
