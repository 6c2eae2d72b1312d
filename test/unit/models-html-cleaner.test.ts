import { describe, expect, it } from 'vitest';
import { cleanHtml, TRUNCATION_MARKER } from '../../src/core/models/html-cleaner.js';

const items = Array.from(
  { length: 20 },
  (_, i) =>
    `<li class="item" data-track="x${i}" data-price="${i}.00" onclick="go()" style="color:red"><a href="/p/${i}">Item   ${i}</a>\n  <span class="price">$${i}.00</span></li>`,
).join('\n');
const page = `<html><head><title>T</title><script>var secret = 1</script><style>p { color: red }</style>
<script type="application/ld+json">{"@type":"Product","name":"Lamp"}</script></head>
<body><!-- a comment --><svg><path d="M0 0"/></svg><ul class="list">\n${items}\n</ul>
<p>Hello   <b>world</b> &amp; more</p><img src="data:image/png;base64,AAAA" alt="pic"></body></html>`;

describe('cleanHtml', () => {
  const cleaned = cleanHtml(page);

  it('drops scripts, styles, svg and comments but keeps JSON-LD', () => {
    expect(cleaned).not.toContain('secret');
    expect(cleaned).not.toContain('color: red');
    expect(cleaned).not.toContain('<svg');
    expect(cleaned).not.toContain('a comment');
    expect(cleaned).toContain('"@type":"Product"');
  });

  it('drops noisy attributes and keeps the ones selectors use', () => {
    expect(cleaned).not.toContain('onclick');
    expect(cleaned).not.toContain('style=');
    expect(cleaned).not.toContain('data-track');
    expect(cleaned).toContain('data-price="0.00"');
    expect(cleaned).toContain('class="item"');
    expect(cleaned).toContain('href="/p/0"');
    expect(cleaned).toContain('src="data:…"');
  });

  it('collapses whitespace', () => {
    expect(cleaned).toContain('Item 0');
    expect(cleaned).not.toMatch(/Item {2,}0/);
    expect(cleaned).toContain('Hello <b>world</b> &amp; more');
  });

  it('keeps the first repeated siblings of a long list and marks the rest', () => {
    expect(cleaned).toContain('href="/p/7"');
    expect(cleaned).not.toContain('href="/p/8"');
    expect(cleaned).toContain('12 more similar <li class="item"> elements left out');
  });

  it('bounds the size with a truncation marker', () => {
    const long = `<div>${Array.from({ length: 2000 }, (_, i) => `<p class="p${i}">paragraph ${i}</p>`).join('')}</div>`;
    const bounded = cleanHtml(long, { maxChars: 1000 });
    expect(bounded.length).toBeLessThanOrEqual(1000);
    expect(bounded.endsWith(TRUNCATION_MARKER)).toBe(true);
    expect(cleanHtml('<p>short</p>', { maxChars: 1000 })).toBe('<p>short</p>');
  });
});
