import { describe, expect, it } from 'vitest';
import { toAvailability } from '../../src/core/extract/engine/availability.js';
import { generateWithHeuristic, htmlPage } from '../support/heuristic-generate.js';

/**
 * A product page's words in its own language (issue 46 item 4): stock stated by a buy button or a stock line
 * in Korean, Chinese, Croatian, Slovak, Czech, Hungarian or Romanian, and an SKU on a "Code:" line. Each page is
 * written for the rule it shows.
 */
const generate = (html: string, lang = 'en') =>
  generateWithHeuristic(htmlPage(html).replace('lang="en"', `lang="${lang}"`), 'https://shop.example/p/1');

describe('stock words in the page language', () => {
  it('reads stock lines, a negation before the word it negates', () => {
    const read = (text: string) => toAvailability(text);
    expect(['Na stanju', 'Na sklade', 'Skladom', 'Skladem', 'Raktáron', 'În stoc', '재고 있음', '有現貨'].map(read)).toEqual(
      Array(8).fill('InStock'),
    );
    expect(
      ['Nema na stanju', 'Nie je na sklade', 'Vypredané', 'Není skladem', 'Nincs raktáron', 'Stoc epuizat', '품절', '缺貨'].map(read),
    ).toEqual(Array(8).fill('OutOfStock'));
    expect(
      ['Dodaj u košaricu', 'Pridať do košíka', 'Kosárba', 'Adaugă în coș', '장바구니 담기', '구매하기', 'Kupi', 'Kúpiť'].map(read),
    ).toEqual(Array(8).fill('InStock'));
    // A cart link in the header is no buy button, and a promo code is no stock word.
    expect([read('Košík'), read('장바구니'), read('Kosár')]).toEqual([null, null, null]);
  });

  it('takes a buy button in Croatian or Korean for the stock of a page without stock markup', async () => {
    const croatian = await generate(
      `<header><a href="/kosarica">Košarica</a></header><h1>Električni kuhalo</h1><span class="cijena">199,99 €</span><button>Dodaj u košaricu</button>`,
      'hr',
    );
    expect(croatian.data).toMatchObject({ availability: 'InStock' });
    const korean = await generate(`<h1>전기 주전자</h1><span class="price">₩35,000</span><a class="btn" href="/order">바로 구매</a>`, 'ko');
    expect(korean.data).toMatchObject({ availability: 'InStock' });
    // The header's cart link alone says nothing about stock.
    const cartOnly = await generate(
      `<header><a href="/cart">장바구니</a></header><h1>전기 주전자</h1><span class="price">₩35,000</span>`,
      'ko',
    );
    expect(cartOnly.data.availability).toBeUndefined();
  });
});

describe('an SKU on a "Code:" line', () => {
  it('reads "Code:" and "Šifra:" as the SKU, not "Promo code:"', async () => {
    const page = await generate(`<h1>Steel Kettle</h1><span class="price">$20.00</span><p><span>Promo code:</span> <span>SAVE10</span></p>
      <p><span>Code:</span> <span>KT-1045</span></p><button>Add to cart</button>`);
    expect(page.data).toMatchObject({ sku: 'KT-1045' });
    const croatian = await generate(`<h1>Kuhalo</h1><span class="price">199,99 €</span><div>Šifra: 88123</div>`, 'hr');
    expect(croatian.data).toMatchObject({ sku: '88123' });
  });
});
