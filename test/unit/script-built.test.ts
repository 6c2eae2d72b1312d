import { describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { scriptBuiltSignal } from '../../src/core/fetch/net/script-built.js';
import { FIXTURE_SITE_DIR } from '../support/site.js';

/** The markup signals that a page's content is built by its scripts (the CLI then suggests scraper 3). */
describe('scriptBuiltSignal', () => {
  it('recognises an empty framework mount point with a script file', () => {
    const signal = scriptBuiltSignal(
      '<html><head><title>Shop</title></head><body><div id="root"></div><script src="/app.js"></script></body></html>',
    );
    expect(signal?.reason).toContain('#root');
  });

  it('recognises a <noscript> asking for JavaScript', () => {
    const page = '<body><noscript>You need to enable JavaScript to run this app.</noscript><div id="x">Loading</div></body>';
    expect(scriptBuiltSignal(page)?.reason).toContain('noscript');
  });

  it('recognises a shell: a heading and an empty list, the rest in inline script', () => {
    const script = `<script>${'document.body.append(x);'.repeat(20)}</script>`;
    expect(scriptBuiltSignal(`<body><h1>Rendered list</h1><ul id="items"></ul>${script}</body>`)?.reason).toContain('13 characters');
  });

  it('leaves server-rendered pages alone: text, a filled #app, a little analytics script', async () => {
    for (const file of ['listing.html', 'product.html', 'table.html', 'jobs-board.html', 'index.html']) {
      expect(scriptBuiltSignal(await readFile(join(FIXTURE_SITE_DIR, file), 'utf8')), file).toBeUndefined();
    }
    const filled = `<body><div id="app"><h1>Shop</h1><p>${'Widgets of every size. '.repeat(12)}</p></div><script src="/a.js"></script></body>`;
    expect(scriptBuiltSignal(filled)).toBeUndefined();
    expect(scriptBuiltSignal(`<body><div id="app"><ul><li>One</li></ul></div><script>track()</script></body>`)).toBeUndefined();
    expect(scriptBuiltSignal('<body><noscript><img src="/pixel.gif"></noscript><p>Hello</p></body>')).toBeUndefined();
  });

  it('a server-rendered product page with short body text and JSON-LD in its head is not called built by JavaScript (issue 52)', () => {
    const product = {
      '@context': 'https://schema.org',
      '@type': 'Product',
      name: 'Kettle',
      description: 'A steel kettle with a lid, for every stove, with a whistle that tells you when the water is ready.',
      offers: { '@type': 'Offer', price: '39.00', priceCurrency: 'EUR', availability: 'https://schema.org/InStock' },
    };
    const page = `<html><head><title>Kettle</title><script type="application/ld+json">${JSON.stringify(product)}</script></head><body><h1>Kettle</h1><p class="price">€39.00</p></body></html>`;
    expect(scriptBuiltSignal(page)).toBeUndefined();
    // The same short page whose content comes from code is still a shell.
    const code = `<script>${'document.body.append(x);'.repeat(20)}</script>`;
    expect(scriptBuiltSignal(`<html><head><title>Kettle</title></head><body><h1>Kettle</h1>${code}</body></html>`)).toBeDefined();
    // A module script is code, too.
    expect(
      scriptBuiltSignal(`<body><h1>Kettle</h1><script type="module">${'document.body.append(x);'.repeat(20)}</script></body>`),
    ).toBeDefined();
  });
});
