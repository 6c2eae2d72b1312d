import fc from 'fast-check';

/**
 * Random nested markup for property tests of the DOM walks against css-select: the given tags (the same tag
 * inside itself, templates), the given class attributes, text, whitespace, comments and void elements.
 */
export function randomMarkup(tags: string[], classes: string[]): fc.Arbitrary<string> {
  return fc.letrec<{ node: string; nodes: string }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constantFrom('text', ' ', '<!-- note -->', '<br>'),
      fc
        .tuple(fc.constantFrom(...tags), fc.constantFrom(...classes), tie('nodes'))
        .map(([tag, cls, inner]) => `<${tag}${cls ? ` class="${cls}"` : ''}>${inner}</${tag}>`),
    ),
    nodes: fc.array(tie('node'), { maxLength: 4 }).map((parts) => parts.join('')),
  })).nodes;
}
