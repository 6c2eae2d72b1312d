import { htmlPage } from './heuristic-generate.js';

/**
 * Multi-page sites of detail pages, one template each, written for issue 46 item 3: ten pages per template
 * whose items differ (ids, classes named after the item, values) and whose optional parts vary (a missing
 * subtitle or "by" line, one more specification row before the others, a review block or not). Each page
 * carries the facts a reader finds on it, by the field name a config should read them under.
 */

export interface DetailPage {
  html: string;
  /** Field name → the value the page shows; a fact the page does not show is absent. */
  facts: Record<string, string>;
}

export interface DetailSite {
  template: string;
  pages: DetailPage[];
}

const PAGES = 10;
const WORDS = ['Harbour', 'Willow', 'Granite', 'Amber', 'Cedar', 'Marlow', 'Juniper', 'Quarry', 'Sable', 'Thistle'];
const PEOPLE = [
  'Jane Doe',
  'Omar Haddad',
  'Li Wei',
  'Ana Souza',
  'Piotr Nowak',
  'Kemi Adeyemi',
  'Sara Lind',
  'Tom Reyes',
  'Mia Koch',
  'Ravi Rao',
];

const related = (n: number) =>
  `<section class="related"><h2>Related</h2>${[1, 2, 3, 4]
    .map(
      (k) =>
        `<div class="card"><a href="/item/${n * 10 + k}">Other ${WORDS[(n + k) % PAGES]}</a><span class="price">$${10 + k}.00</span></div>`,
    )
    .join('')}</section>`;

const reviews = (n: number) =>
  n % 3 === 0
    ? ''
    : `<section class="reviews"><h2>Reviews</h2>${[1, 2, 3]
        .map((k) => `<div class="review"><p><b>Rating:</b> ${k + 1} of 5</p><p>Read it ${k} times, ${WORDS[k]} is good.</p></div>`)
        .join('')}</section>`;

function bookPage(n: number): DetailPage {
  const isbn = `97800000000${String(n).padStart(2, '0')}`;
  const title = `The ${WORDS[n]} Book`;
  const subtitle = n % 2 === 0 ? `A ${WORDS[(n + 3) % PAGES]} Story` : null;
  const series = n % 4 === 1 ? `<li><strong>Series</strong>: ${WORDS[(n + 5) % PAGES]} Tales</li>` : '';
  const html = htmlPage(`<header><nav><a href="/">Home</a><a href="/books">Books</a></nav></header>
    <main><div class="book book-${isbn}" id="product-${isbn}"><h1>${title}</h1>
    ${subtitle ? `<p class="subtitle">${subtitle}</p>` : ''}
    <p class="byline">by <a href="/author/${n}">${PEOPLE[n]}</a></p>
    <ul class="facts">${series}<li><strong>Publisher</strong>: ${WORDS[(n + 1) % PAGES]} House</li>
    <li><strong>Pages</strong>: ${200 + n * 13}</li><li><b>ISBN-13:</b> ${isbn}</li>
    <li><span class="label">Format:</span> ${n % 2 ? 'Hardcover' : 'Paperback'}</li></ul></div>
    ${reviews(n)}${related(n)}</main>`);
  const facts: Record<string, string> = {
    author: PEOPLE[n]!,
    publisher: `${WORDS[(n + 1) % PAGES]} House`,
    pages: String(200 + n * 13),
    isbn13: isbn,
    format: n % 2 ? 'Hardcover' : 'Paperback',
  };
  if (subtitle) facts.subtitle = subtitle;
  return { html, facts };
}

function gadgetPage(n: number): DetailPage {
  const extra = n % 3 === 2 ? `<dt>Colour</dt><dd>${WORDS[n]} grey</dd>` : '';
  const html = htmlPage(`<main><article class="gadget-${n}"><h1>${WORDS[n]} Speaker ${n}</h1>
    <p class="lead">A speaker for rooms of every size.</p><h2>Specifications</h2>
    <dl class="specs">${extra}<dt>Weight</dt><dd>${1 + n / 10} kg</dd><dt>Battery life</dt><dd>${10 + n} hours</dd>
    <dt>Connectivity</dt><dd>${n % 2 ? 'Bluetooth 5.0' : 'Wi-Fi and Bluetooth'}</dd></dl></article>${related(n)}</main>`);
  const facts = {
    weight: `${1 + n / 10} kg`,
    batteryLife: `${10 + n} hours`,
    connectivity: n % 2 ? 'Bluetooth 5.0' : 'Wi-Fi and Bluetooth',
  };
  return { html, facts };
}

function artworkPage(n: number): DetailPage {
  const extra = n % 4 === 3 ? `<tr><th>Provenance</th><td>Gift of the ${WORDS[n]} family</td></tr>` : '';
  const html = htmlPage(`<div id="object-${1000 + n}"><h1>${WORDS[n]} at Dusk</h1>
    <table class="object-data"><tbody>${extra}<tr><th>Artist</th><td>${PEOPLE[n]}</td></tr><tr><th>Date</th><td>${1850 + n}</td></tr>
    <tr><th>Medium</th><td>Oil on ${n % 2 ? 'canvas' : 'panel'}</td></tr><tr><th>Accession number</th><td>AN.${1000 + n}</td></tr></tbody></table>
    </div>${reviews(n)}`);
  const facts = {
    artist: PEOPLE[n]!,
    date: String(1850 + n),
    medium: `Oil on ${n % 2 ? 'canvas' : 'panel'}`,
    accessionNumber: `AN.${1000 + n}`,
  };
  return { html, facts };
}

function recipePage(n: number): DetailPage {
  const byline = n % 5 === 4 ? '' : `<p class="meta">By <a href="/chef/${n}">${PEOPLE[n]}</a></p>`;
  const extra = n % 2 ? `<p>Difficulty: ${n % 3 ? 'Easy' : 'Medium'}</p>` : '';
  const html = htmlPage(`<main class="recipe-${WORDS[n]!.toLowerCase()}"><h1>${WORDS[n]} Soup</h1>${byline}
    <div class="times">${extra}<p>Prep time: ${10 + n} min</p><p>Cook time: ${30 + n} min</p><p>Serves: ${2 + (n % 4)}</p></div>
    <h2>Method</h2><p>Chop, simmer and serve while it is hot.</p></main>${related(n)}`);
  const facts: Record<string, string> = { prepTime: `${10 + n} min`, cookTime: `${30 + n} min`, serves: String(2 + (n % 4)) };
  if (byline) facts.author = PEOPLE[n]!;
  if (extra) facts.difficulty = n % 3 ? 'Easy' : 'Medium';
  return { html, facts };
}

function homePage(n: number): DetailPage {
  const row = (key: string, value: string) => `<div class="row"><div class="k">${key}</div><div class="v">${value}</div></div>`;
  const extra = n % 3 === 1 ? row('Garden', `${20 + n} m²`) : '';
  const html = htmlPage(`<main><section class="listing" id="listing-${5000 + n}"><h1>${WORDS[n]} Cottage</h1>
    <div class="details">${extra}${row('Bedrooms', String(1 + (n % 4)))}${row('Floor area', `${60 + n * 5} m²`)}${row('Heating', n % 2 ? 'Gas' : 'Heat pump')}
    ${row('Agent', `${WORDS[(n + 2) % PAGES]} Homes`)}</div></section>${related(n)}</main>`);
  const facts = {
    bedrooms: String(1 + (n % 4)),
    floorArea: `${60 + n * 5} m²`,
    heating: n % 2 ? 'Gas' : 'Heat pump',
    agent: `${WORDS[(n + 2) % PAGES]} Homes`,
  };
  return { html, facts };
}

export function detailSites(): DetailSite[] {
  const site = (template: string, page: (n: number) => DetailPage) => ({
    template,
    pages: Array.from({ length: PAGES }, (_, n) => page(n)),
  });
  return [
    site('bookshop: li with strong label, by line, subtitle', bookPage),
    site('gadgets: dl specifications', gadgetPage),
    site('museum: th/td object data', artworkPage),
    site('recipes: "Label: value" lines, By line', recipePage),
    site('homes: div rows of label and value cells', homePage),
  ];
}
