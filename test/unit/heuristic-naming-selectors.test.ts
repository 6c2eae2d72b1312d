import { describe, expect, it } from 'vitest';
import type { Field } from '../../src/core/config/schema.js';
import { isStableId } from '../../src/core/extract/page/selectors.js';
import { generateWithHeuristic, htmlPage } from '../support/heuristic-generate.js';

/** Selectors anchored on what a person wrote (issue 36 item 4): never on an id generated per build or visit. */
const generate = (body: string) => generateWithHeuristic(htmlPage(body), 'https://shop.example/lamp');

describe('ids that anchor a selector', () => {
  it('takes ids a person wrote and leaves generated ones', () => {
    for (const id of ['main-menu', 'Major_parks', 'section2', 'h1', 'related-products']) expect(isStableId(id), id).toBe(true);
    for (const id of ['rec-carousel-0i4aq87ohnr__prev-btn', 'rec-carousel-ntzguatb5t__prev-btn', 'ember42x', 'item-12345'])
      expect(isStableId(id), id).toBe(false);
  });

  it('never anchors a list on a generated id before it', async () => {
    // Lists without a class of their own: only the button before each could anchor them.
    const carousel = (id: string, word: string) =>
      `<button id="${id}__prev-btn">Previous</button><ul>${[1, 2, 3]
        .map((n) => `<li><a href="/${word}/${n}">${word} lamp ${n}</a><span>€${n}9.00</span></li>`)
        .join('')}</ul>`;
    const { structure } = await generate(
      `<h1>Lamp</h1><ul><li>a</li><li>b</li></ul>${carousel('rec-carousel-0i4aq87ohnr', 'desk')}<p>between</p>` +
        `<div>${carousel('rec-carousel-ntzguatb5t', 'floor')}<ul><li>c</li></ul></div>`,
    );
    const selectors = structure.filter((field: Field) => field.type === 'array').map((field) => field.selector ?? '');
    expect(selectors).toHaveLength(2);
    for (const selector of selectors) expect(selector).not.toMatch(/rec-carousel-/);
  });
});
