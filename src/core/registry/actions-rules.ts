import { scraperByNumber } from '../fetch/index.js';
import { validateSelector } from '../extract/index.js';
import { malformedPlaceholder, type Action, type ApiConfig } from '../config/index.js';

type Problem = { path: Array<string | number>; message: string; hint: string };

const SELECTOR_KEYS = ['click', 'wait', 'type', 'select', 'ifExists'] as const;

/**
 * Why a config's `actions` cannot work (docs/actions.md), in words: steps on scrapers 1–2, a selector that does
 * not parse, a malformed `{{ }}` in step text. The schema (config/actions.ts) has checked the shape and the
 * count; a variable the text uses without an entry in `variables` is reported with the URL's placeholders
 * (validate.ts), since step text is checked like the URL.
 */
export function actionProblems(config: ApiConfig): Problem[] {
  const actions = config.actions;
  if (!actions || actions.length === 0) return [];
  const problems: Problem[] = [];
  if (config.scraper !== 3) {
    const scraper = scraperByNumber(config.scraper);
    problems.push({
      path: ['actions'],
      message: `actions need scraper 3 (the browser): scraper ${config.scraper} (${scraper.name}) reads the page as it loads and cannot click, type or wait`,
      hint: 'set "scraper": 3, or remove actions',
    });
  }
  checkSteps(actions, ['actions'], problems);
  return problems;
}

function checkSteps(steps: readonly Action[], at: Array<string | number>, problems: Problem[]): void {
  steps.forEach((step, index) => {
    const path = [...at, index];
    for (const key of SELECTOR_KEYS) {
      const selector = step[key];
      if (selector === undefined) continue;
      const problem = validateSelector(selector);
      if (problem)
        problems.push({
          path: [...path, key],
          message: `CSS selector does not parse: ${problem}`,
          hint: 'write a CSS selector such as #search, button.more or [data-testid="accept"]',
        });
    }
    for (const key of ['text', 'value'] as const) {
      const text = step[key];
      if (text !== undefined && malformedPlaceholder(text)) {
        problems.push({
          path: [...path, key],
          message: `the ${key} holds a malformed placeholder`,
          hint: 'write a request variable as {{ name }} with a name of letters, digits and _',
        });
      }
    }
    if (step.then) checkSteps(step.then, [...path, 'then'], problems);
  });
}
