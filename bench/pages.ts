/**
 * Synthetic pages of known size and shape for the benchmarks: a listing of N product cards with 5 fields
 * each, padded with realistic description text until it reaches the wanted size.
 */
const WORDS =
  'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua'.split(' ');

function sentence(seed: number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i += 1) out.push(WORDS[(seed * 7 + i * 13) % WORDS.length]!);
  return out.join(' ');
}

export function listingPage(items: number, targetBytes: number): string {
  const cards: string[] = [];
  for (let i = 0; i < items; i += 1) {
    cards.push(`<article class="product">
  <h3 class="name"><a href="/item/${i}.html" title="Product number ${i}">Product number ${i}</a></h3>
  <img class="thumb" src="/img/${i}.jpg" alt="Picture of product ${i}">
  <p class="price">£${(10 + ((i * 37) % 90)).toFixed(2)}</p>
  <p class="stock">${i % 3 === 0 ? 'Out of stock' : 'In stock'}</p>
  <p class="description">${sentence(i, 40)}</p>
</article>`);
  }
  let body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Benchmark listing</title>
<meta name="description" content="A listing of ${items} products"></head><body><header><nav><a href="/">Home</a></nav></header>
<main><h1>All products</h1><section class="products">${cards.join('\n')}</section>`;
  let n = 0;
  while (body.length < targetBytes - 200) body += `<p class="filler">${sentence(n++, 30)}</p>\n`;
  return `${body}</main><footer>© Benchmark</footer></body></html>`;
}

/** The 5 fields per item that both pagejson's config and the hand-written baseline extract. */
export const LISTING_ITEM_SELECTOR = 'article.product';
export const LISTING_FIELDS = [
  { name: 'name', selector: 'h3 a', attribute: 'title' },
  { name: 'url', selector: 'h3 a', attribute: 'href' },
  { name: 'image', selector: 'img', attribute: 'src' },
  { name: 'price', selector: '.price' },
  { name: 'stock', selector: '.stock' },
] as const;

export function listingConfig(
  apiId: string,
  url: string,
  options: { caching: boolean; model?: string; scraper?: 1 | 2 | 3 },
): Record<string, unknown> {
  return {
    apiId,
    revision: 1,
    url,
    scraper: options.scraper ?? 1,
    caching: options.caching,
    model: options.model ?? 'heuristic',
    structure: [
      { name: 'title', type: 'string', selector: 'h1' },
      {
        name: 'items',
        type: 'array',
        selector: LISTING_ITEM_SELECTOR,
        fields: [
          { name: 'name', type: 'string', selector: 'h3 a', attribute: 'title' },
          { name: 'url', type: 'url', selector: 'h3 a', attribute: 'href' },
          { name: 'image', type: 'url', selector: 'img', attribute: 'src' },
          { name: 'price', type: 'number', selector: '.price' },
          { name: 'stock', type: 'string', selector: '.stock' },
        ],
      },
    ],
  };
}
