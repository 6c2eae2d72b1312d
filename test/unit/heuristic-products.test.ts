import { describe, expect, it } from 'vitest';
import type { Field } from '../../src/core/config/schema.js';
import { generateWithHeuristic, htmlPage } from '../support/heuristic-generate.js';

/**
 * Product pages (issue 36 item 1): structured data first and read leniently, then the page; one `product`
 * object with one field per attribute, named as users expect, no two fields that disagree. Each page is
 * written for the rule it shows.
 */
const URL_ = 'https://shop.example/p/1';
const page = (body: string, head = '<title>Shop</title>') => htmlPage(body, head);
const ld = (value: unknown) => `<script type="application/ld+json">${JSON.stringify(value)}</script>`;
const generate = (html: string) => generateWithHeuristic(html, URL_);

/** Every field name anywhere in the structure, with its path. */
function names(fields: Field[], prefix = ''): string[] {
  return fields.flatMap((field) => [`${prefix}${field.name}`, ...names(field.fields ?? [], `${prefix}${field.name}.`)]);
}

describe('product pages: structured data read leniently', () => {
  it('reads a lower-case `product` type with offers, availability and rating, ignoring the visible "Check in-store stock"', async () => {
    const html = page(
      `<h1>Trail Shoe</h1><p class="stock">Check in-store stock</p><span class="price">$89.00</span><button>Add to cart</button>`,
      `<title>Trail Shoe</title>${ld({
        '@context': 'https://schema.org',
        '@type': 'product',
        name: 'Trail Shoe',
        sku: 'TS-9',
        brand: { '@type': 'brand', name: 'Hike' },
        offers: { '@type': 'offer', price: '89.00', priceCurrency: 'USD', availability: 'http://schema.org/InStock' },
        aggregateRating: { '@type': 'AggregateRating', ratingValue: '4.6', reviewCount: '31' },
      })}`,
    );
    const { structure, data } = await generate(html);
    expect(data.product).toMatchObject({
      name: 'Trail Shoe',
      price: 89,
      currency: 'USD',
      availability: 'InStock',
      sku: 'TS-9',
      brand: 'Hike',
      rating: 4.6,
      reviewCount: 31,
    });
    // One field per attribute: no top-level price or availability beside the product's.
    expect(structure.map((field) => field.name)).not.toContain('price');
    expect(structure.map((field) => field.name)).not.toContain('availability');
  });

  it("reads prefixed types (`schema:Product`), a product that is the page's main entity, and reads a description holding HTML as its text", async () => {
    const html = page(
      '<h1>Kettle</h1>',
      `<meta name="description" content="A kettle & more">${ld({
        '@type': 'WebPage',
        mainEntity: {
          '@type': ['schema:Product'],
          name: 'Kettle',
          gtin13: '4006381333931',
          description: '<p>Boils water &amp; more</p>',
          offers: [{ '@type': 'Offer', price: 25, priceCurrency: 'EUR' }],
        },
      })}`,
    );
    const { data } = await generate(html);
    expect(data.product).toEqual({ name: 'Kettle', price: 25, currency: 'EUR', gtin: '4006381333931', description: 'Boils water & more' });
    expect(data.description).toBe('A kettle & more');
  });

  it('reads an offer nested in an offer (microdata), naming each property once, as users expect', async () => {
    const html = page(`
      <div itemscope itemtype="https://schema.org/Product">
        <h1 itemprop="name">Angel Bear</h1>
        <div itemprop="offers" itemscope itemtype="https://schema.org/Offer">
          <div itemprop="itemCondition">New</div>
          <div itemprop="offers" itemscope itemtype="https://schema.org/Offer">
            <span itemprop="price" content="12.99">GBP 12,99</span>
            <span itemprop="availability" content="https://schema.org/InStock"></span>
            <span itemprop="priceCurrency" content="GBP"></span>
          </div>
        </div>
        <span itemprop="gtin13">5012345678900</span>
      </div>`);
    const { structure, data } = await generate(html);
    expect(data.product).toMatchObject({
      name: 'Angel Bear',
      price: 12.99,
      currency: 'GBP',
      availability: 'InStock',
      gtin: '5012345678900',
    });
    expect(names(structure).filter((name) => /\d$/.test(name))).toEqual([]);
    expect(names(structure)).not.toContain('product.offersOffers');
  });

  it('reads availability stated by a link to its schema.org name as the name, not as a URL of the page', async () => {
    const html = page(`
      <div itemscope itemtype="http://schema.org/Product"><h1 itemprop="name">Lamp</h1>
        <div itemprop="offers" itemscope itemtype="http://schema.org/Offer"><meta itemprop="price" content="10">
          <link itemprop="availability" href="http://schema.org/InStock"></div></div>`);
    expect((await generate(html)).data.product).toEqual({ name: 'Lamp', price: 10, availability: 'InStock' });
  });

  it('reads RDFa and OpenGraph product tags', async () => {
    const rdfa = page(`
      <div vocab="https://schema.org/" typeof="Product">
        <h1 property="name">Desk Lamp</h1>
        <div property="offers" typeof="Offer"><span property="price" content="39.90">39,90 €</span><meta property="priceCurrency" content="EUR"></div>
        <span property="sku">DL-1</span>
      </div>`);
    expect((await generate(rdfa)).data.product).toMatchObject({ name: 'Desk Lamp', price: 39.9, currency: 'EUR', sku: 'DL-1' });
    const og = page(
      '<h1>Mug</h1><p>Nice mug.</p>',
      `<meta property="og:type" content="product"><meta property="product:price:amount" content="7.50"><meta property="product:price:currency" content="CHF"><meta property="product:availability" content="out of stock"><meta property="product:brand" content="Potter">`,
    );
    expect((await generate(og)).data.product).toMatchObject({ price: 7.5, currency: 'CHF', availability: 'OutOfStock', brand: 'Potter' });
  });

  it('takes the markup price and drops what the page shows beside another price (a converted price), so nothing disagrees', async () => {
    const html = page(
      `<h1>Teddy</h1><div class="price-box"><span class="price">EUR 14,43</span></div><button>Buy now</button>`,
      `<title>Teddy</title>${ld({ '@type': 'Product', name: 'Teddy', offers: { price: '12.99', priceCurrency: 'GBP' } })}`,
    );
    const { structure, data } = await generate(html);
    expect(data.product).toMatchObject({ name: 'Teddy', price: 12.99, currency: 'GBP' });
    expect(names(structure).filter((name) => /price/i.test(name))).toEqual(['product.price']);
  });
});

describe('product pages: facts read from the page', () => {
  it("reads facts by their labels in the page's language, an SKU as the code in its text, availability from the buy button", async () => {
    const html = page(`
      <main>
        <h1>Akkuschrauber GSR 12V</h1>
        <div class="buy"><span class="price">129,00 €</span><button class="cta">In den Warenkorb</button></div>
        <p class="code">Artikelnummer: 763127 Versandfertig</p>
        <table class="specs"><tr><td>Marke:</td><td>Bosch</td></tr><tr><td>Gewicht:</td><td>1 kg</td></tr></table>
      </main>`);
    const { data } = await generate(html);
    expect(data).toMatchObject({ price: 129, sku: '763127', brand: 'Bosch', availability: 'InStock' });
  });

  it('reads the brand labelled as the manufacturer in Latvian and Polish, from a parameter list', async () => {
    const latvian = page(`<h1>Soma Rosso</h1><span class="price">EUR110.00</span>
      <ul class="params"><li><span>Prece </span><div><span>Soma</span></div></li><li><span>Ražotājs </span><div><span>MONNALISA</span></div></li></ul>`);
    expect((await generate(latvian)).data).toMatchObject({ price: 110, brand: 'MONNALISA' });
    const polish = page(`<h1>Czajnik</h1><span class="price">129 zł</span><dl><dt>Producent:</dt><dd>Bosch</dd></dl>`);
    expect((await generate(polish)).data).toMatchObject({ price: 129, brand: 'Bosch' });
  });

  it('never reads a stock statement ("En stock") as the label of the next text; the buy button still says InStock', async () => {
    const html = page(`<h1>Montre Pro Trek</h1><p class="product__price">259,00 €</p>
      <form><div><p>En Stock</p><p class="product__delay">Livraison sous 24h</p></div><button class="btn">Ajouter au panier</button></form>`);
    expect((await generate(html)).data).toMatchObject({ price: 259, availability: 'InStock' });
  });

  it('offers no availability for words that say nothing about stock', async () => {
    const html = page(`<h1>Lamp</h1><span class="price">$20</span><span class="availability">Ships from Hayes, UK</span>`);
    const { data } = await generate(html);
    expect(data.price).toBe(20);
    expect(data.availability).toBeUndefined();
  });

  it("reads a label with the shop's name beside it, prices in tenge and a code labelled in Russian", async () => {
    const ebay = page(`<h1>Pony Harness</h1><span class="price">£45.00</span>
      <div class="details"><div>eBay item number:</div><div>143863282131</div></div>`);
    expect((await generate(ebay)).data).toMatchObject({ price: 45, sku: '143863282131' });
    const tenge = page(`<h1>Телефон Galaxy A01 <span class="code">Код: 01245</span></h1><div class="cost">44 890 тг.</div>`);
    expect((await generate(tenge)).data).toMatchObject({ price: 44890, sku: '01245' });
  });

  it("offers no field for a template's unfilled placeholder", async () => {
    const html = page(
      `<h1>Sofa</h1><span class="price">$300</span>`,
      `${ld({ '@type': 'Product', name: 'Sofa', brand: '$metabrand', sku: '{{ sku }}', offers: { price: 300 } })}`,
    );
    const { data } = await generate(html);
    expect(data.product).toEqual({ name: 'Sofa', price: 300, priceText: '$300' });
  });

  it('reads the brand after its label inside a longer text, and an offer marked without its product', async () => {
    const html = page(`
      <h1>Microwave NN-E27</h1>
      <a class="product-brand" href="/b/pana">Ver mais artigos da Marca: Panasonic</a>
      <span itemprop="offers" itemscope itemtype="http://schema.org/Offer"><meta itemprop="priceCurrency" content="CAD"><meta itemprop="price" content="229.99">
        <span class="sr-text">$229.99</span><div class="price" aria-hidden="true">$229<span>99</span></div></span>`);
    const { data } = await generate(html);
    expect(data.product).toMatchObject({ price: 229.99, currency: 'CAD', brand: 'Panasonic' });
  });

  it('cuts the label off a brand that microdata marks with its label inside (Portuguese, French)', async () => {
    const html = page(`
      <div itemscope itemtype="http://schema.org/Product"><h1 itemprop="name">Micro-ondas NN-K35</h1>
        <a itemprop="brand" href="/b/pana">Ver mais artigos da Marca: Panasonic</a>
        <div itemprop="offers" itemscope itemtype="http://schema.org/Offer"><meta itemprop="price" content="109"></div></div>`);
    expect((await generate(html)).data.product).toMatchObject({ name: 'Micro-ondas NN-K35', price: 109, brand: 'Panasonic' });
    const french = page(`
      <div itemscope itemtype="http://schema.org/Product"><h1 itemprop="name">Bouilloire</h1>
        <span itemprop="brand">Tous les produits de la marque : Moulinex</span></div>`);
    expect((await generate(french)).data.product).toMatchObject({ brand: 'Moulinex' });
  });

  it('never takes the price drawn for the eye only (aria-hidden) over the one a reader gets', async () => {
    const html = page(
      `<h1>Speaker</h1><div class="price-box"><span class="visually-off">$49.99</span><div class="price" aria-hidden="true">$49<span>99</span></div></div>`,
    );
    expect((await generate(html)).data.price).toBe(49.99);
  });

  it('reads availability from a buy button drawn with a div or span', async () => {
    const html = page(
      `<h1>Телефон A01</h1><div class="cost">44 890 тг.</div><div class="buy-box"><span class="btn-red">В корзину</span></div>`,
    );
    expect((await generate(html)).data).toMatchObject({ price: 44890, availability: 'InStock' });
  });
});
