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

/** The answers, and the id chosen when the one the URL gives is taken (asked right after the URL). */
export type GeneratedInputs = Required<GenerateInputs> & { apiId?: string };

export interface ModelChoice {
  value: string;
  description: string;
}

const OTHER_MODEL = '\u0000other';

export interface InputChecks {
  /** A reason the URL cannot be fetched, or null. */
  url(value: string): string | null;
  selector(value: string): string | null;
  /**
   * The id this URL gives when a config already has it (undefined when it is free, or `--id`/`--force` said
   * what to do): the id is then asked at once, not found taken after every other question.
   */
  takenId?(url: string): string | undefined;
  /** Why an id typed cannot be used, or null. */
  id?(value: string): string | null;
}

export async function askGenerateInputs(given: GenerateInputs, models: ModelChoice[], checks: InputChecks): Promise<GeneratedInputs> {
  const { input, select, confirm, GoBack } = await import('./ask.js');
  const answers: GenerateInputs & { apiId?: string } = { ...given };
  /** A step that asked nothing (the id, when it is free) says so: Escape steps back past it. */
  type Step = { key: keyof GenerateInputs | 'apiId'; ask: () => Promise<'silent' | void> };
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
      key: 'apiId',
      ask: async () => {
        const taken = checks.takenId?.(answers.url!);
        if (taken === undefined) {
          delete answers.apiId;
          return 'silent';
        }
        answers.apiId = (
          await input({
            message: `configs/${taken}.json already exists; apiId of the new endpoint`,
            default: answers.apiId ?? `${taken}-2`,
            validate: (value) => checks.id?.(value.trim()) ?? true,
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
  const asked = steps.filter((step) => step.key === 'apiId' || given[step.key] === undefined);
  const silent = new Set<number>();
  for (let index = 0; index < asked.length;) {
    try {
      if ((await asked[index]!.ask()) === 'silent') silent.add(index);
      else silent.delete(index);
      index += 1;
    } catch (error) {
      if (!(error instanceof GoBack)) throw error;
      let back = index - 1;
      while (back >= 0 && silent.has(back)) back -= 1;
      if (back < 0) throw error;
      index = back;
    }
  }
  return {
    url: answers.url!,
    scraper: answers.scraper ?? 1,
    session: answers.session ?? false,
    model: answers.model!,
    selector: answers.selector ?? 'body',
    rule: answers.rule ?? null,
    ...(answers.apiId ? { apiId: answers.apiId } : {}),
  };
}
