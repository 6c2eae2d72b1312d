import { distance } from 'fastest-levenshtein';

/**
 * The known name closest to what was written, when it is close enough to be a typo (an edit distance of at
 * most a third of its length, at least 1): `scrapper` → `scraper`, `boks` → `books`.
 */
export function closest(written: string, known: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  const lower = written.toLowerCase();
  for (const candidate of known) {
    const d = distance(lower, candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  const limit = Math.max(1, Math.floor(written.length / 3));
  return best !== undefined && bestDistance > 0 && bestDistance <= limit ? best : undefined;
}

/** ` (did you mean "books"?)`, or '' when nothing is close. */
export function didYouMean(written: string, known: Iterable<string>): string {
  const match = closest(written, known);
  return match ? ` (did you mean "${match}"?)` : '';
}
