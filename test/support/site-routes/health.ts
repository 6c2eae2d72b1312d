import type { RouteHandler } from '../site.js';

/**
 * Pages for truthful health (issue 33), each before and after one kind of change. `site.state.get(<name>)`
 * says which version is live ('1' by default), so a test can change the site under a running config:
 *
 * - `/health/product` ('product'): a product page; '2' renames every class (price, SKU and currency gone).
 * - `/health/planets` ('planets'): an article with a table of planets; '2' inserts a promo table before it.
 * - `/health/products` ('products'): a list of products; '2' renames the item container, '3' wraps the items
 *   in an extra element, '4' renames the container and moves every link to a new address; `?n=` (or 'products-n') serves only the first n products (lists vary in length between fetches).
 * - `/health/tags` (never changes): a top-level list of 13 tags, for selectors broken by an edit.
 */
const PRODUCTS = [
  ['Walnut desk', '249.00', '/p/walnut-desk'],
  ['Oak shelf', '129.50', '/p/oak-shelf'],
  ['Pine stool', '39.90', '/p/pine-stool'],
  ['Maple chair', '89.00', '/p/maple-chair'],
  ['Birch table', '310.00', '/p/birch-table'],
  ['Cherry cabinet', '540.00', '/p/cherry-cabinet'],
] as const;

export const HEALTH_TAGS = ['css', 'html', 'http', 'json', 'dom', 'xpath', 'regex', 'unicode', 'gzip', 'tls', 'dns', 'cors', 'cache'];

export const PLANETS = [
  ['Mercury', '0'],
  ['Venus', '0'],
  ['Earth', '1'],
  ['Mars', '2'],
  ['Jupiter', '95'],
  ['Saturn', '146'],
  ['Uranus', '28'],
  ['Neptune', '16'],
] as const;

export function product(version: string): string {
  const c = (name: string) =>
    version === '1' ? name : `${name[0]!.toUpperCase()}${name.slice(1).replace(/-/g, '')}_${name.replace(/-/g, '')}__k3x9`;
  return `<main class="${c('product')}"><h1 class="${c('product-name')}">Walnut desk</h1>
    <div class="${c('price-box')}"><del><span class="${c('price')}" data-currency="USD">$299.00</span></del>
    <span class="${c('price')}" data-currency="USD">$249.00</span></div>
    <p>SKU: <span class="${c('sku')}">WD-4471</span></p></main>`;
}

export function planets(version: string): string {
  const rows = PLANETS.map(([name, moons]) => `<tr><td>${name}</td><td>${moons}</td></tr>`).join('');
  const promo =
    '<table class="promo"><thead><tr><th>Offer</th><th>Code</th></tr></thead><tbody>' +
    ['Summer sale:SKY10', 'Telescopes:STAR20', 'Star maps:MAP5', 'Binoculars:BINO15', 'Books:READ30']
      .map((row) => row.split(':'))
      .map(([offer, code]) => `<tr><td>${offer}</td><td>${code}</td></tr>`)
      .join('') +
    '</tbody></table>';
  return `<article><h1>The planets</h1>${version === '2' ? promo : ''}
    <table class="wikitable"><thead><tr><th>Planet</th><th>Moons</th></tr></thead><tbody>${rows}</tbody></table></article>`;
}

export function products(version: string, count: number = PRODUCTS.length): string {
  const item = version === '2' || version === '4' ? 'ProductCard_item__q8Zt1' : 'product';
  // '4': the container renamed and every link at a new address (the links' old addresses are gone).
  const cards = PRODUCTS.slice(0, count)
    .map(
      ([name, price, url]) =>
        `<article class="${item}"><a class="title" href="${version === '4' ? `${url.replace('/p/', '/item/')}?ref=grid` : url}">${name}</a><span class="price">$${price}</span></article>`,
    )
    .join('');
  return `<h1>Furniture</h1><div class="products">${version === '3' ? `<div class="row">${cards}</div>` : cards}</div>`;
}

function page(res: Parameters<RouteHandler>[1], title: string, body: string): void {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(`<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`);
}

export const tags = (): string =>
  `<h1>Tags</h1><ul class="tags">${HEALTH_TAGS.map((tag) => `<li><a href="/t/${tag}">${tag}</a></li>`).join('')}</ul>`;

export const healthRoutes: Record<string, RouteHandler> = {
  '/health/product': (_req, res, site) => page(res, 'Walnut desk', product(site.state.get('product') ?? '1')),
  '/health/planets': (_req, res, site) => page(res, 'Planets', planets(site.state.get('planets') ?? '1')),
  '/health/products': (req, res, site) => {
    const n = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('n') ?? site.state.get('products-n') ?? PRODUCTS.length);
    page(res, 'Furniture', products(site.state.get('products') ?? '1', Number.isInteger(n) ? n : PRODUCTS.length));
  },
  '/health/tags': (_req, res) => page(res, 'Tags', tags()),
};
