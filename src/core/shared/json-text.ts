/**
 * JSON text already made for an object, so it is not made twice. The extraction thread sends a page's data as
 * JSON text (one string copy between threads, cheaper than a structured clone of the objects, measured); the
 * main thread parses it for what reads the data (health, model fields) and the response body reuses the
 * text. Whoever changes such an object afterwards forgets its text first (`forgetJsonText`).
 *
 * Keyed weakly by the object itself: the text goes with the object, and no outside string becomes a key.
 */
const known = new WeakMap<object, string>();

/** Remembers that `text` is `JSON.stringify(value)`. */
export function rememberJsonText(value: object, text: string): void {
  known.set(value, text);
}

/** The object is about to change: its remembered text no longer says what it holds. */
export function forgetJsonText(value: object): void {
  known.delete(value);
}

/** `JSON.stringify(value)`, or the text remembered for it. */
export function jsonText(value: unknown): string {
  if (typeof value === 'object' && value !== null) {
    const text = known.get(value);
    if (text !== undefined) return text;
  }
  return JSON.stringify(value);
}
