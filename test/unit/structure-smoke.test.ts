import { expect, test } from 'vitest';
import { compileStructure, validateSelector, validateTransform } from '../../src/core/structure/index.js';

test('smoke', () => {
  const compiled = compileStructure({ structure: [{ name: 'title', type: 'string', selector: 'h1' }, { name: 'price', type: 'number', selector: '.p' }] });
  const out = compiled.extract('<h1> Hello\n world </h1><p class=p>£1,234.50</p>', 'https://x.test/');
  expect(out.data).toEqual({ title: 'Hello world', price: 1234.5 });
  expect(validateSelector('div[')).toMatch(/Expected/);
  expect(validateTransform('regex:(a)(b)')).toMatch(/exactly one/);
});
