import type { ServerResponse } from 'node:http';
import type { RouteHandler } from '../site.js';

/**
 * The cases of issue 47 (a repair that is right, complete and shown before it is saved), each as a user met it.
 * `site.state.get(<name>)` says which version is live ('1' by default):
 *
 * - `/trust/jobs` (never changes): a top-level list of twelve job titles in `li.job-card h2`.
 * - `/trust/goods` ('goods'): `ul.goods > li.good > h3.good-name`; '2' renames every class and adds a wrapper
 *   (`div.wrap > ul.x9f-list > li.x9f-item > h3.x9f-t`).
 * - `/trust/shop?page=N` ('shop'): 24 laptops, 9 a page, with a name link, a price and a review count, and a
 *   `a.next` link; '2' is the redesign: BEM classes (`h3.tile__name a`), the review count drawn as stars with
 *   the count in an `aria-label` only, and the pager's link is `a.pager__next`.
 * - `/trust/section` ('section'): the goods inside `main.catalogue`, a promo list of other goods in the same
 *   markup beside it; '2' renames every class, the section's too (`main.x7-main`, `ul.x7-list > li.x7-item`).
 * - `/trust/store` ('store'): a heading `h1` "Laptops" over six laptops in cards; '2' is the catalogue rotated and
 *   redesigned at once (six other laptops in `div.tile`s, none of the last good values left), the heading now
 *   "Laptops — spring sale" and "Laptops" alone in the breadcrumb: a repair finds only the heading's old value.
 * - `/trust/feed` ('feed'): the first goods of a feed and a `button.more` "Load more"; '2' renames the button
 *   (`button.feed__more`, "Load more") and adds an unrelated "Subscribe" button.
 */
export const JOB_TITLES = [
  'Backend engineer',
  'Frontend engineer',
  'Data scientist',
  'Product designer',
  'Site reliability engineer',
  'Engineering manager',
  'QA analyst',
  'Technical writer',
  'Security engineer',
  'Mobile developer',
  'Support specialist',
  'Sales engineer',
];

export const GOODS = ['Linen shirt', 'Wool scarf', 'Canvas tote', 'Leather belt', 'Cotton socks', 'Denim jacket', 'Silk tie'];

const LAPTOP_NAMES = [
  'ZenBook 14',
  'Spectre x360',
  'ThinkPad Carbon',
  'MacBook Air',
  'XPS Thirteen',
  'Swift Go',
  'Galaxy Book Pro',
  'Surface Laptop',
  'IdeaPad Slim',
  'Pavilion Aero',
  'Envy Move',
  'Yoga Slim',
  'Vivobook Pro',
  'Inspiron Plus',
  'Chromebook Flip',
  'Aspire Vero',
  'Latitude Nine',
  'EliteBook Ultra',
  'Blade Stealth',
  'Legion Slim',
  'Nitro Lite',
  'Predator Helios',
  'Stealth Studio',
  'Framework Laptop',
];

/** Laptop `index` (0-based): its name, price and review count (the first one's count is 14, as in its name). */
export function laptop(index: number): { name: string; price: number; reviewCount: number; url: string } {
  return {
    name: LAPTOP_NAMES[index]!,
    price: 499 + index * 50,
    reviewCount: index === 0 ? 14 : 120 + index * 7,
    url: `/trust/laptop/${index + 1}`,
  };
}

export const SHOP_PAGE_SIZE = 9;
export const SHOP_TOTAL = LAPTOP_NAMES.length;

function page(res: ServerResponse, title: string, body: string): void {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(`<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`);
}

export const jobsHtml = (): string =>
  `<h1>Open positions</h1><ul class="jobs">${JOB_TITLES.map((title, index) => `<li class="job-card"><h2>${title}</h2><p class="loc">Office ${index + 1}</p></li>`).join('')}</ul>`;

export function goodsHtml(version: string): string {
  if (version === '2')
    return `<h1>Goods</h1><div class="wrap"><ul class="x9f-list">${GOODS.map((name) => `<li class="x9f-item"><h3 class="x9f-t">${name}</h3></li>`).join('')}</ul></div>`;
  return `<h1>Goods</h1><ul class="goods">${GOODS.map((name) => `<li class="good"><h3 class="good-name">${name}</h3></li>`).join('')}</ul>`;
}

export function shopHtml(version: string, pageNumber: number): string {
  const first = (pageNumber - 1) * SHOP_PAGE_SIZE;
  const items = Array.from({ length: Math.max(0, Math.min(SHOP_PAGE_SIZE, SHOP_TOTAL - first)) }, (_, at) => laptop(first + at));
  const more = first + SHOP_PAGE_SIZE < SHOP_TOTAL;
  const next = `/trust/shop?page=${pageNumber + 1}`;
  if (version === '2') {
    const tiles = items.map(
      (item) =>
        `<div class="tile"><h3 class="tile__name"><a href="${item.url}">${item.name}</a></h3><div class="tile__price">$${item.price}.00</div><div class="tile__stars" aria-label="${item.reviewCount} reviews">★★★★☆</div></div>`,
    );
    const pager = more ? `<nav class="pager"><a class="pager__next" href="${next}">Next page</a></nav>` : '<nav class="pager"></nav>';
    return `<h1>Laptops</h1><div class="tiles">${tiles.join('')}</div>${pager}`;
  }
  const cards = items.map(
    (item) =>
      `<div class="card"><h3 class="card-name"><a href="${item.url}">${item.name}</a></h3><span class="card-price">$${item.price}.00</span><span class="card-reviews">${item.reviewCount}</span></div>`,
  );
  const pager = more ? `<div class="paging"><a class="next" href="${next}">Next</a></div>` : '<div class="paging"></div>';
  return `<h1>Laptops</h1><div class="cards">${cards.join('')}</div>${pager}`;
}

export const PROMO = ['Gift card', 'Mystery box', 'Store voucher'];

export function sectionHtml(version: string): string {
  const [list, item, name] = version === '2' ? ['x7-list', 'x7-item', 'x7-name'] : ['goods', 'good', 'good-name'];
  const ul = (names: string[]) =>
    `<ul class="${list}">${names.map((each) => `<li class="${item}"><h3 class="${name}">${each}</h3></li>`).join('')}</ul>`;
  return `<h1>Goods</h1><aside class="promo">${ul(PROMO)}</aside><main class="${version === '2' ? 'x7-main' : 'catalogue'}"><h2>Catalogue</h2>${ul(GOODS)}</main>`;
}

export function feedHtml(version: string): string {
  const items = GOODS.slice(0, 4)
    .map((name) => `<li class="good"><h3 class="good-name">${name}</h3></li>`)
    .join('');
  const button =
    version === '2'
      ? '<button class="subscribe" type="button">Subscribe</button><button class="feed__more" type="button">Load more</button>'
      : '<button class="more" type="button">Load more</button>';
  return `<h1>Feed</h1><ul class="goods">${items}</ul>${button}`;
}

const ROTATED = ['Aurora 15', 'Nimbus Pro', 'Vector S', 'Quill Air', 'Orbit X', 'Tundra 13'];

export function storeHtml(version: string): string {
  if (version === '2') {
    const tiles = ROTATED.map(
      (name, at) => `<div class="tile"><h3 class="tile__name">${name}</h3><b class="tile__price">$${1299 + at * 100}.00</b></div>`,
    );
    return `<nav class="crumbs"><a href="/">Home</a> › <span>Laptops</span></nav><h1>Laptops — spring sale</h1><div class="tiles">${tiles.join('')}</div>`;
  }
  const cards = Array.from({ length: 6 }, (_, at) => laptop(at)).map(
    (item) => `<div class="card"><h3 class="card-name">${item.name}</h3><span class="card-price">$${item.price}.00</span></div>`,
  );
  return `<nav class="crumbs"><a href="/">Home</a></nav><h1>Laptops</h1><div class="cards">${cards.join('')}</div>`;
}

export const healTrustRoutes: Record<string, RouteHandler> = {
  '/trust/store': (_req, res, site) => page(res, 'Laptops', storeHtml(site.state.get('store') ?? '1')),
  '/trust/section': (_req, res, site) => page(res, 'Goods', sectionHtml(site.state.get('section') ?? '1')),
  '/trust/feed': (_req, res, site) => page(res, 'Feed', feedHtml(site.state.get('feed') ?? '1')),
  '/trust/jobs': (_req, res) => page(res, 'Jobs', jobsHtml()),
  '/trust/goods': (_req, res, site) => page(res, 'Goods', goodsHtml(site.state.get('goods') ?? '1')),
  '/trust/shop': (req, res, site) => {
    const requested = Number(new URL(req.url ?? '/', 'http://fixture').searchParams.get('page') ?? '1');
    const pageNumber = Number.isInteger(requested) && requested >= 1 && requested <= 10 ? requested : 1;
    page(res, 'Laptops', shopHtml(site.state.get('shop') ?? '1', pageNumber));
  },
};
