import { describe, expect, it } from 'vitest';
import { generateWithHeuristic, htmlPage } from '../support/heuristic-generate.js';

/**
 * The price of a product page read from the page itself (issue 36 item 1): the price a reader pays, not one
 * the page labels or names as another. Each page is written for the rule it shows.
 */
const generate = (html: string) => generateWithHeuristic(html, 'https://shop.example/p/1');

describe('the main price of a page without markup', () => {
  it('passes over a price labelled as a former or recommended one, struck out or not', async () => {
    const english = htmlPage(`<h1>Electric Kettle</h1>
      <p><span class="lbl">Was:</span> <span>$30.00</span></p><p><span class="lbl">Now:</span> <span>$20.00</span></p>
      <button>Add to cart</button>`);
    expect((await generate(english)).data).toMatchObject({ price: 20 });
    const german = htmlPage(`<h1>Wasserkocher</h1><div class="preise"><span>UVP 49,99 €</span><span>39,99 €</span></div>
      <button>In den Warenkorb</button>`);
    expect((await generate(german)).data).toMatchObject({ price: 39.99 });
  });

  it("prefers the price labelled as the one to pay (an auction's current bid) over a closer postage price", async () => {
    const english = htmlPage(`<h1>Oak Mantel Clock</h1><div>Time left: 2d 4h</div>
      <p><span>Postage:</span> <span>£12.50</span></p><p><span>Current bid:</span> <span>£85.00</span></p><button>Place bid</button>`);
    expect((await generate(english)).data).toMatchObject({ price: 85 });
    const french = htmlPage(`<h1>Pendule</h1><p>Livraison : <b>9,90 €</b></p><p>Enchère actuelle : <b>120,00 €</b></p>`);
    expect((await generate(french)).data).toMatchObject({ price: 120 });
  });

  it('reads "old" and "was" in class names as words: `font-bold` is no old price, `wasPrice` is', async () => {
    const html = htmlPage(`<h1>Desk Lamp</h1>
      <div class="mt-2"><span class="wasPrice">€45.00</span> <span class="text-2xl font-bold">€35.00</span></div>
      <button>Add to basket</button>`);
    expect((await generate(html)).data).toMatchObject({ price: 35, oldPrice: 45 });
  });
});
