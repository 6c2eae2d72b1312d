import type { ScraperNumber } from '../../core/config/schema.js';
import { SCRAPER_CAPABILITIES } from '../../core/scrapers/types.js';

/**
 * The questions `pagejson generate` asks on a terminal for every input its flags left out. @inquirer/prompts
 * is imported here, lazily, so that a scripted run never loads it.
 */
export interface GenerateInputs {
  url?: string;
  scraper?: ScraperNumber;
  session?: boolean;
  model?: string;
  selector?: string;
  rule?: string | null;
}

export interface ModelChoice {
  value: string;
  description: string;
}

const OTHER_MODEL = '\u0000other';

export async function askGenerateInputs(given: GenerateInputs, models: ModelChoice[], checkSelector: (selector: string) => string | null): Promise<Required<GenerateInputs>> {
  const { input, select, confirm } = await import('@inquirer/prompts');

  const url =
    given.url ??
    (await input({
      message: 'Page URL',
      validate: (value) => (/^https?:\/\/\S+$/i.test(value.trim()) ? true : 'give a full http:// or https:// address'),
    })).trim();

  const scraper =
    given.scraper ??
    (await select<ScraperNumber>({
      message: 'Scraper',
      choices: Object.values(SCRAPER_CAPABILITIES)
        .sort((a, b) => a.number - b.number)
        .map((c) => ({ name: `${c.number}  ${c.name}`, value: c.number, description: c.description })),
    }));

  const session =
    given.session ??
    (SCRAPER_CAPABILITIES.http.number === scraper
      ? await confirm({ message: 'Use session (visit the site\'s origin first for cookies)?', default: false })
      : false);

  let model = given.model;
  if (model === undefined) {
    const picked = await select<string>({
      message: 'Model',
      choices: [...models.map((m) => ({ name: m.value, value: m.value, description: m.description })), { name: 'other OpenAI model…', value: OTHER_MODEL, description: 'openai:<model> with OPENAI_API_KEY' }],
    });
    model =
      picked === OTHER_MODEL
        ? `openai:${(await input({ message: 'OpenAI model name', default: 'gpt-4o-mini', validate: (v) => (v.trim() ? true : 'name a model') })).trim()}`
        : picked;
  }

  const selector =
    given.selector ??
    ((await input({
      message: 'CSS selector of the section to extract',
      default: 'body',
      validate: (value) => {
        const problem = checkSelector(value.trim() || 'body');
        return problem ? `not a valid CSS selector: ${problem}` : true;
      },
    })).trim() || 'body');

  const rule =
    given.rule !== undefined
      ? given.rule
      : (await input({ message: 'Data extraction rule (optional, e.g. "product names and prices")' })).trim() || null;

  return { url, scraper, session, model, selector, rule };
}
