import { isPagejsonError } from '../../core/shared/errors.js';
import { writeLine, type CliContext } from '../context.js';

/** A section the page has, as the generation's "matches nothing" error offers it (generation/generate.ts). */
interface OfferedSection {
  selector: string;
  items: number;
  item: string;
}

const TYPE_ANOTHER = '\u0000type';

/**
 * On a terminal, a section selector that matches nothing is asked again, with the sections the page has, the
 * whole page, or one typed: the question comes back instead of the command ending after every answer given.
 * Returns the selector to try, or undefined when the error is another one or the user stepped back (Escape).
 */
export async function askAnotherSection(
  error: unknown,
  ctx: CliContext,
  validate: (selector: string) => string | null,
): Promise<string | undefined> {
  if (!isPagejsonError(error) || error.code !== 'USAGE' || typeof error.context.selector !== 'string') return undefined;
  const offered = Array.isArray(error.context.candidates) ? (error.context.candidates as unknown[]).filter(isOffered) : [];
  const { input, select, GoBack } = await import('./ask.js');
  writeLine(ctx.stderr, error.message);
  try {
    const picked = await select<string>({
      message: 'Section to extract',
      choices: [
        ...offered.map((section) => ({
          name: `${section.selector}  (${section.items} × ${section.item})`,
          value: section.selector,
        })),
        { name: 'the whole page', value: 'body', description: 'body' },
        { name: 'another selector…', value: TYPE_ANOTHER },
      ],
    });
    if (picked !== TYPE_ANOTHER) return picked;
    const typed = await input({
      message: 'CSS selector of the section to extract',
      validate: (text) => {
        const problem = validate(text.trim() || 'body');
        return problem ? `not a valid CSS selector: ${problem}` : true;
      },
    });
    return typed.trim() || 'body';
  } catch (asked) {
    if (asked instanceof GoBack) return undefined;
    throw asked;
  }
}

function isOffered(value: unknown): value is OfferedSection {
  const section = value as OfferedSection | null;
  return typeof section?.selector === 'string' && typeof section.items === 'number' && typeof section.item === 'string';
}
