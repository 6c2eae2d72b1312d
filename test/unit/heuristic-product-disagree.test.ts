import { describe, expect, it } from 'vitest';
import { generateWithHeuristic, htmlPage } from '../support/heuristic-generate.js';

/**
 * Product pages whose markup and page disagree (issue 36 item 1): the value a reader reads wins when the page
 * says why the markup's is another one; otherwise the markup stays. Each page is written for the rule it shows.
 */
const URL_ = 'https://shop.example/p/1';
const ld = (value: unknown) => `<script type="application/ld+json">${JSON.stringify(value)}</script>`;
const generate = (html: string) => generateWithHeuristic(html, URL_);

describe('a price the page shows as another price', () => {
  it("takes an auction's current bid over the markup's starting price, which the page labels as such", async () => {
    const html = htmlPage(
      `<h1>Walnut Side Table</h1>
      <div class="estimate">Estimate $300 - $500</div>
      <div class="bidding"><span class="current">$200</span> <span class="count">4 bids</span>
        <span class="opening">Starting Price $150</span><button>Place Bid</button></div>`,
      ld({ '@type': 'Product', name: 'Walnut Side Table', offers: { '@type': 'Offer', price: 150, priceCurrency: 'USD' } }),
    );
    const { data } = await generate(html);
    expect(data.product).toMatchObject({ name: 'Walnut Side Table', price: 200, currency: 'USD' });
  });

  it('reads the label in another language, beside the price in its own element (Startgebot)', async () => {
    const html = htmlPage(
      `<h1>Taschenuhr</h1>
      <dl class="gebote"><dt>Aktuelles Gebot</dt><dd class="betrag">320,00 €</dd><dt>Startgebot</dt><dd>90,00 €</dd></dl>`,
      ld({ '@type': 'Product', name: 'Taschenuhr', offers: { price: '90.00', priceCurrency: 'EUR' } }),
    );
    expect((await generate(html)).data.product).toMatchObject({ price: 320, currency: 'EUR' });
  });

  it('takes the sale price when the markup states the regular price the page shows as the old one, and calls that oldPrice', async () => {
    const html = htmlPage(`
      <h1>Mugursoma Rosso</h1>
      <div itemscope itemtype="http://schema.org/Product"><div itemprop="offers" itemscope itemtype="http://schema.org/Offer">
        <meta itemprop="price" content="219.99"><meta itemprop="priceCurrency" content="EUR"></div></div>
      <div class="price-block"><span class="original-price">EUR219.99</span> <span class="discount">-50%</span>
        <div class="product-price"><span class="current">EUR110.00</span></div></div>
      <button>Pievienot grozam</button>`);
    const { data } = await generate(html);
    expect(data.product).toMatchObject({ price: 110, oldPrice: 219.99, currency: 'EUR' });
    // A price the page does not mark as another (a converted price beside a struck one) leaves the markup's.
    const converted = htmlPage(
      `<h1>Teddy</h1><div class="price-box"><span class="price">EUR 14,43</span><s>EUR 16,00</s></div><button>Buy now</button>`,
      ld({ '@type': 'Product', name: 'Teddy', offers: { price: '12.99', priceCurrency: 'GBP' } }),
    );
    expect((await generate(converted)).data.product).toMatchObject({ price: 12.99, currency: 'GBP' });
  });
});

describe('an SKU the reader sees', () => {
  it('takes the labelled code on the page over a markup sku the page never shows', async () => {
    const html = htmlPage(
      `<h1>Drum Unit DR-2401</h1><p>Cod produs: <span class="product-code-display">DR2401</span></p><p class="price">139,98 Lei</p>`,
      ld({ '@type': 'Product', name: 'Drum Unit DR-2401', sku: 'DMCSZ4BBM', offers: { price: 139.98, priceCurrency: 'RON' } }),
    );
    const { structure, data } = await generate(html);
    expect(data.product).toMatchObject({ sku: 'DR2401', price: 139.98 });
    // One sku field in the whole structure: never two that disagree.
    expect(JSON.stringify(structure).match(/"name":"sku"/g)).toHaveLength(1);
    // A markup sku the page shows too stays, whatever other code is labelled.
    const shown = htmlPage(
      `<h1>Trail Shoe</h1><p class="sku">SKU: TS-9</p><p>Ref. <span class="product-ref">55-1024</span></p><span class="price">$89.00</span>`,
      ld({ '@type': 'Product', name: 'Trail Shoe', sku: 'TS-9', offers: { price: 89 } }),
    );
    expect((await generate(shown)).data.product).toMatchObject({ sku: 'TS-9' });
  });

  it('offers a markup sku that the page labels as an ISBN or EAN as the gtin, not the sku', async () => {
    const html = htmlPage(
      `<h1>Código do Trabalho</h1><span class="price">71,91 €</span><p>Ano: 2020 ISBN: 9789724084985 Número de páginas: 1204</p>`,
      `<meta property="og:type" content="product"><meta property="product:retailer_item_id" content="9789724084985">
      <meta property="product:price:amount" content="71.91"><meta property="product:price:currency" content="EUR">`,
    );
    const { structure, data } = await generate(html);
    expect(data.product).toMatchObject({ price: 71.91, gtin: '9789724084985' });
    expect(JSON.stringify(structure)).not.toContain('"name":"sku"');
  });

  it('finds the code an element is named for in a data attribute, and selects it by that attribute', async () => {
    const html = htmlPage(
      `<h1>Over-the-knee Boots</h1><span class="main-price">69.95 EUR</span>
      <p class="product-color"><span>Black</span> - <span data-qa-qualifier="product-reference">1002/710</span></p>`,
      ld({ '@type': 'Product', name: 'Over-the-knee Boots', sku: '84518927-040-35', offers: { price: '69.95', priceCurrency: 'EUR' } }),
    );
    const { structure, data } = await generate(html);
    expect(data.product).toMatchObject({ sku: '1002/710' });
    const sku = structure.find((field) => field.name === 'product')!.fields!.find((field) => field.name === 'sku')!;
    expect(sku.selector).toBe('span[data-qa-qualifier="product-reference"]');
    // Other data attributes hold states, not names: a size's stock status is not the product's availability.
    const sizes = htmlPage(`<h1>Boots</h1><span class="price">€70</span>
      <select><option data-stock-status="stock-none">36 - sold out</option><option>37</option></select><div class="availability">In stock</div>`);
    expect((await generate(sizes)).data).toMatchObject({ price: 70, availability: 'InStock' });
  });

  it('reads item numbers labelled in Italian and Portuguese', async () => {
    const italian = htmlPage(`<h1>Orsetto</h1><span class="price">EUR 12,99</span>
      <div class="desc"><div class="lbl">Numero oggetto eBay:</div><div class="num">133588510845</div></div>`);
    expect((await generate(italian)).data).toMatchObject({ price: 12.99, sku: '133588510845' });
    const portuguese = htmlPage(`<h1>Micro-ondas</h1><div class="price">109€</div>
      <table class="specs"><tr><td><span>Potência</span></td><td><span>800 W</span></td></tr>
      <tr><td><span>ID Produto</span></td><td><span>1236291</span></td></tr></table>`);
    expect((await generate(portuguese)).data).toMatchObject({ price: 109, sku: '1236291' });
  });
});

describe('availability of a product sold in variants', () => {
  it("reads the page's own stock words when the markup's variants disagree, and the markup when they agree", async () => {
    const offers = (first: string, second: string) => [
      { '@type': 'Offer', sku: 'D-36', price: '89.50', availability: `http://schema.org/${first}` },
      { '@type': 'Offer', sku: 'D-38', price: '89.50', availability: `http://schema.org/${second}` },
    ];
    const body = `<h1>Cocktail Dress</h1><span class="price">€89.50</span><select><option>36</option><option>38</option></select>
      <div class="cta"><button class="primary">In den Warenkorb</button></div>`;
    const sizes = htmlPage(body, ld({ '@type': 'Product', name: 'Cocktail Dress', offers: offers('OutOfStock', 'InStock') }));
    expect((await generate(sizes)).data.product).toMatchObject({ price: 89.5, availability: 'InStock' });
    const soldOut = htmlPage(body, ld({ '@type': 'Product', name: 'Cocktail Dress', offers: offers('OutOfStock', 'OutOfStock') }));
    expect((await generate(soldOut)).data.product).toMatchObject({ availability: 'OutOfStock' });
  });
});
