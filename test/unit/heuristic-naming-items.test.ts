import { describe, expect, it } from 'vitest';
import type { Field } from '../../src/core/config/schema.js';
import { generateWithHeuristic, htmlPage } from '../support/heuristic-generate.js';

/** Names of a record's fields (issue 36 item 2): what the values are, never `text2`, `url2` or a build's hash. */
const generate = (body: string) => generateWithHeuristic(htmlPage(body), 'https://shop.example/lamps');
const fieldsOf = (structure: Field[]) => structure.find((field) => field.type === 'array')!.fields!;
const namesOf = (structure: Field[]) => fieldsOf(structure).map((field) => field.name);

const cards = (card: (n: number) => string) => `<h2>Lamps</h2><ul class="lamps">${[1, 2, 3, 4].map(card).join('')}</ul>`;

describe('names of a record’s fields', () => {
  it('names a link by its class words other than "link", and by the last known word of a class', async () => {
    const { structure } = await generate(
      cards(
        (n) =>
          `<li class="lamp"><h3><a href="/lamp/${n}">Lamp ${n}</a></h3><a class="card__vendor link" href="/brand/${n}">Maker ${n}</a>` +
          `<span class="review-author">Reviewer ${n}</span><span class="card__sub-title">Desk lamp model ${n}</span></li>`,
      ),
    );
    expect(namesOf(structure)).toEqual(['title', 'url', 'vendor', 'vendorUrl', 'author', 'subtitle']);
  });

  it('reads a price called new (a BEM modifier) as the price and the other one as the old price', async () => {
    const { structure, data } = await generate(
      cards(
        (n) =>
          `<li class="lamp"><h3>Lamp ${n}</h3><p class="item__price"><span class="item__price--old">€${n}9.00</span>` +
          `<span class="item__price--new">€${n}5.00</span></p></li>`,
      ),
    );
    const names = namesOf(structure);
    expect(names).toEqual(expect.arrayContaining(['title', 'price', 'oldPrice']));
    expect(names.filter((name) => /\d$/.test(name))).toEqual([]);
    expect((data.lamps as Array<Record<string, unknown>>)[0]).toMatchObject({ price: 15, oldPrice: 19 });
  });

  it('names texts without a class by what they hold, and never after a hashed class', async () => {
    const { structure } = await generate(
      cards(
        (n) =>
          `<li class="lamp"><h3>Lamp ${n}</h3><section><span>(Only ${n} left)</span></section>` +
          `<footer><span>-${n}0%</span></footer><div class="_1i39aq49">Ships in ${n} days from the warehouse</div></li>`,
      ),
    );
    const names = namesOf(structure);
    expect(names).toEqual(expect.arrayContaining(['title', 'note', 'discount']));
    expect(names.filter((name) => /\d$/.test(name) || /39/.test(name))).toEqual([]);
  });

  it('names a second link by its class or where it leads, not url2', async () => {
    const { structure } = await generate(
      cards(
        (n) =>
          `<li class="lamp"><a class="lamp-link" href="/lamp/${n}">Lamp ${n}</a>` +
          `<a class="thumb" href="/lamp/${n}/gallery"><img src="/img/${n}.jpg" alt=""></a><a href="/lamp/${n}/reviews">${n} reviews</a></li>`,
      ),
    );
    const names = namesOf(structure);
    expect(names.filter((name) => /\d$/.test(name))).toEqual([]);
    expect(names).toEqual(expect.arrayContaining(['title', 'url', 'galleryUrl', 'image', 'reviewsUrl']));
  });

  it('reads each record’s own image, not a placeholder every record shares, and a thumbnail link’s title as the title', async () => {
    const { structure } = await generate(
      cards(
        (n) =>
          `<li class="lamp"><a class="thumb-link" href="/lamp/${n}" title="Brass desk lamp ${n}"><img class="default-image" src="/placeholder.png" alt="">` +
          `<img class="photo lazy" src="/lazy.png" data-src="/img/${n}.jpg" alt=""></a><span class="price">€${n}9.00</span></li>`,
      ),
    );
    const fields = fieldsOf(structure);
    expect(fields.map((field) => field.name)).toEqual(['title', 'url', 'image', 'price']);
    expect(fields.find((field) => field.name === 'image')).toMatchObject({ attribute: 'data-src' });
  });

  it('names a second long text called a description by what is left (`summary`), not description2', async () => {
    const { structure } = await generate(
      cards(
        (n) =>
          `<li class="lamp"><h3>Lamp ${n}</h3><p class="description">A brass lamp for a desk, model ${n}, with a warm light and a heavy base.</p>` +
          `<div class="short-description">Made by hand in a small workshop, lamp ${n} ships within two days of your order.</div></li>`,
      ),
    );
    expect(namesOf(structure)).toEqual(['title', 'description', 'summary']);
  });

  it('never names a field after atomic CSS hashes, a class led by a digit, or a font weight', async () => {
    const { structure } = await generate(
      cards(
        (n) =>
          `<li class="lamp"><a href="/lamp/${n}">Lamp ${n}</a><span class="EKabf7 xOFAt kMvGAR">Brass and glass ${n}</span>` +
          `<span class="_2tW1I">Ships in ${n} days or less</span><em class="semibold">Only today, offer ${n}</em><span class="a2j_a2t">Kit ${n}</span></li>`,
      ),
    );
    const names = namesOf(structure);
    expect(names.slice(0, 2)).toEqual(['title', 'url']);
    for (const shorthand of ['xofat', 'ekabf', 'tW1', 'semibold', 'a2t'])
      expect(names.join(' ').toLowerCase()).not.toContain(shorthand.toLowerCase());
  });
});
