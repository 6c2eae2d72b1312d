/**
 * Pages far larger than a model's context, for generation with a token budget (docs/models.md): the list a
 * user wants sits at their very end, after what a cut at the first N characters keeps.
 */

/**
 * A page of more than 3 MB: a state blob in the head, a long story whose headings and paragraphs alternate (no
 * run of alike siblings for the cleaner to fold, as on most article pages), and 12 jobs in `ul.jobs` at the end.
 */
export function listAtEndPage(): string {
  const blob = `<script>window.__STATE__ = ${JSON.stringify({ rows: Array.from({ length: 25_000 }, (_, i) => ({ id: i, text: 'y'.repeat(100) })) })}</script>`;
  const story = Array.from(
    { length: 7_000 },
    (_, i) => `<h2>Chapter ${i}</h2><p>Of lamps, chairs and tables ${'x'.repeat(i % 50)}.</p>`,
  ).join('\n');
  const jobs = Array.from(
    { length: 12 },
    (_, i) =>
      `<li class="job"><a href="/jobs/${i}">Engineer ${i}</a><span class="place">Berlin</span><span class="salary">€${50 + i},000</span></li>`,
  ).join('');
  return `<html><head><title>Careers</title>${blob}</head><body><main><h1>Careers</h1><article class="story">${story}</article><ul class="jobs">${jobs}</ul></main></body></html>`;
}

/**
 * A page of about 3.5 MB whose 6-item list comes after a block of 24,000 rows of other data (issue 52 item 4):
 * the model's view must sample both, not show the big block alone.
 */
export function listAfterBlockPage(): string {
  const rows = Array.from(
    { length: 24_000 },
    (_, i) =>
      `<tr class="row"><td class="code">R-${i}</td><td class="name">Part number ${i} of the catalogue</td><td class="qty">${i % 97}</td><td class="loc">Aisle ${i % 40}, shelf ${i % 7}</td></tr>`,
  ).join('');
  const releases = Array.from(
    { length: 6 },
    (_, i) => `<li class="release"><a href="/r/${i}">Release ${i}: Northern Lights</a> <span class="date">2026-0${i + 1}-01</span></li>`,
  ).join('');
  return `<html><head><title>Inventory</title></head><body><h1>Inventory</h1><table class="inventory"><tbody>${rows}</tbody></table><h2>Latest releases</h2><ul class="releases">${releases}</ul></body></html>`;
}
