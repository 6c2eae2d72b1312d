import type { ScraperNumber } from '../../core/config/schema.js';
import { SCRAPER_CAPABILITIES } from '../../core/fetch/scrapers/types.js';

/**
 * The questions `pagejson generate` asks on a terminal for every input its flags left out, one step at a
 * time: Escape goes back to the previous question (at the first one it leaves), flags are never asked again.
 * The prompts are imported here, lazily, so that a scripted run never loads them.
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

export interface InputChecks {
  /** A reason the URL cannot be fetched, or null. */
  url(value: string): string | null;
  selector(value: string): string | null;
}

export async function askGenerateInputs(
  given: GenerateInputs,
  models: ModelChoice[],
  checks: InputChecks,
): Promise<Required<GenerateInputs>> {
  const { input, select, confirm, GoBack } = await import('./ask.js');
  const answers: GenerateInputs = { ...given };
  type Step = { key: keyof GenerateInputs; ask: () => Promise<void> };
  const steps: Step[] = [
    {
      key: 'url',
      ask: async () => {
        // Stepping back to a question offers its previous answer.
        answers.url = (
          await input({
            message: 'Page URL',
            ...(answers.url ? { default: answers.url } : {}),
            validate: (value) => checks.url(value.trim()) ?? true,
          })
        ).trim();
      },
    },
    {
      key: 'scraper',
      ask: async () => {
        answers.scraper = await select<ScraperNumber>({
          message: 'Scraper',
          ...(answers.scraper ? { default: answers.scraper } : {}),
          choices: Object.values(SCRAPER_CAPABILITIES)
            .sort((a, b) => a.number - b.number)
            .map((c) => ({ name: `${c.number}  ${c.name}`, value: c.number, description: c.description })),
        });
      },
    },
    {
      key: 'session',
      ask: async () => {
        answers.session =
          SCRAPER_CAPABILITIES.http.number === answers.scraper
            ? await confirm({ message: "Use session (visit the site's origin first for cookies)?", default: false })
            : false;
      },
    },
    {
      key: 'model',
      ask: async () => {
        const picked = await select<string>({
          message: 'Model',
          choices: [
            ...models.map((m) => ({ name: m.value, value: m.value, description: m.description })),
            { name: 'other OpenAI model…', value: OTHER_MODEL, description: 'openai:<model> with OPENAI_API_KEY' },
          ],
        });
        answers.model =
          picked === OTHER_MODEL
            ? `openai:${(await input({ message: 'OpenAI model name', default: 'gpt-4o-mini', validate: (v) => (v.trim() ? true : 'name a model') })).trim()}`
            : picked;
      },
    },
    {
      key: 'selector',
      ask: async () => {
        const value = await input({
          message: 'CSS selector of the section to extract',
          default: answers.selector ?? 'body',
          validate: (text) => {
            const problem = checks.selector(text.trim() || 'body');
            return problem ? `not a valid CSS selector: ${problem}` : true;
          },
        });
        answers.selector = value.trim() || 'body';
      },
    },
    {
      key: 'rule',
      ask: async () => {
        answers.rule =
          (
            await input({
              message: 'Data extraction rule (optional, e.g. "product names and prices")',
              ...(answers.rule ? { default: answers.rule } : {}),
            })
          ).trim() || null;
      },
    },
  ];
  // Only what the flags left out is asked; Escape steps back through those.
  const asked = steps.filter((step) => given[step.key] === undefined);
  for (let index = 0; index < asked.length;) {
    try {
      await asked[index]!.ask();
      index += 1;
    } catch (error) {
      if (!(error instanceof GoBack)) throw error;
      if (index === 0) throw error;
      index -= 1;
    }
  }
  return {
    url: answers.url!,
    scraper: answers.scraper ?? 1,
    session: answers.session ?? false,
    model: answers.model!,
    selector: answers.selector ?? 'body',
    rule: answers.rule ?? null,
  };
}
