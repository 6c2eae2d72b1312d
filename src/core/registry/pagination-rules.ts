import { scraperByNumber } from '../fetch/index.js';
import { paginationListField, selectorCostProblem, validateSelector } from '../extract/index.js';
import { BROWSER_PAGINATION_KINDS, paginationKind, placeholderNames, type ApiConfig, type Field } from '../config/index.js';

type Problem = { path: Array<string | number>; message: string; hint: string };

/**
 * Why a config's pagination cannot work (docs/pagination.md), in words: a browser-only kind on scrapers 1–2, a
 * page variable the URL lacks, a list or key field the structure does not have, a selector that does not
 * parse. The schema (config/pagination.ts) has already checked the shape.
 */
export function paginationProblems(config: ApiConfig): Problem[] {
  const pagination = config.pagination;
  if (!pagination) return [];
  const problems: Problem[] = [];
  const kind = paginationKind(pagination);
  if (BROWSER_PAGINATION_KINDS.has(kind) && config.scraper !== 3) {
    const scraper = scraperByNumber(config.scraper);
    problems.push({
      path: ['pagination', kind],
      message: `pagination.${kind} needs scraper 3 (the browser): scraper ${config.scraper} (${scraper.name}) reads the page as it loads and cannot ${kind === 'loadMore' ? 'click a button' : 'scroll'}`,
      hint:
        kind === 'loadMore'
          ? 'set "scraper": 3, or use pagination.next if the button is a link to the next page'
          : 'set "scraper": 3, or use pagination.next or pagination.variable if the site also has numbered pages',
    });
  }
  if (pagination.variable !== undefined && !placeholderNames(config.url).includes(pagination.variable)) {
    const name = pagination.variable;
    problems.push({
      path: ['pagination', 'variable'],
      message: `pagination.variable "${name}" has no {{ ${name} }} placeholder in the url`,
      hint: `put {{ ${name} }} where the page number goes (…/page/{{ ${name} }}/ or ?page={{ ${name} }}), e.g. \`pagejson edit ${config.apiId} --var query:page=${name}\`, or name the placeholder the url has`,
    });
  }
  for (const [at, selector] of [
    ['next', pagination.next],
    ['loadMore', pagination.loadMore],
  ] as const) {
    if (selector === undefined) continue;
    const problem = validateSelector(selector) ?? selectorCostProblem(selector);
    if (problem)
      problems.push({
        path: ['pagination', at],
        message: `CSS selector is refused: ${problem}`,
        hint: 'select the link or button itself, e.g. a[rel="next"] or .pagination .next a',
      });
  }
  problems.push(...listProblems(config.structure, pagination));
  return problems;
}

function listProblems(structure: Field[], pagination: NonNullable<ApiConfig['pagination']>): Problem[] {
  const list = paginationListField(structure, pagination);
  const arrays = structure.filter((field) => field.type === 'array').map((field) => field.name);
  if (list === undefined) {
    if (pagination.list !== undefined) {
      return [
        {
          path: ['pagination', 'list'],
          message: `pagination.list "${pagination.list}" is not a top-level array field of the structure`,
          hint: arrays.length > 0 ? `use one of ${arrays.join(', ')}` : 'add an array field for the items, or remove pagination',
        },
      ];
    }
    return [
      {
        path: ['pagination'],
        message: 'pagination needs a top-level array field to merge the pages into, and the structure has none',
        hint: "add an array field for the list's items (`pagejson edit`), or remove pagination",
      },
    ];
  }
  if (pagination.key === undefined) return [];
  const field = structure.find((entry) => entry.name === list)!;
  const names = (field.fields ?? []).map((entry) => entry.name);
  if (names.includes(pagination.key)) return [];
  return [
    {
      path: ['pagination', 'key'],
      message: field.fields
        ? `pagination.key "${pagination.key}" is not a field of the items of ${list}`
        : `pagination.key needs items with fields, and ${list} is a list of single values (they are compared as they are)`,
      hint: field.fields ? `use one of ${names.join(', ')}, or remove key to compare items in every field` : 'remove key',
    },
  ];
}
