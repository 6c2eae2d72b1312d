import { emitKeypressEvents } from 'node:readline';
import { checkbox as checkboxPrompt, confirm as confirmPrompt, input as inputPrompt, select as selectPrompt } from '@inquirer/prompts';

/**
 * The prompts of the interactive commands, with Escape as "back": a prompt left with Escape throws GoBack,
 * which the menu loops catch to return to the previous menu (the main menu of `edit` offers to save or
 * discard). Ctrl-C stays inquirer's ExitPromptError, which the CLI turns into a clean exit 130 (handle-error).
 */
export class GoBack extends Error {
  constructor() {
    super('back');
    this.name = 'GoBack';
  }
}

export const BACK_CHOICE = '\u0000back';

type Prompt<C, T> = (config: C, context?: { signal?: AbortSignal }) => Promise<T>;

function withEscape<C, T>(prompt: Prompt<C, T>): (config: C) => Promise<T> {
  return async (config) => {
    const controller = new AbortController();
    const input = process.stdin;
    emitKeypressEvents(input);
    const onKey = (_text: string | undefined, key: { name?: string } | undefined) => {
      if (key?.name === 'escape') controller.abort();
    };
    input.on('keypress', onKey);
    try {
      const answer = await prompt(config, { signal: controller.signal });
      if (answer === BACK_CHOICE) throw new GoBack();
      return answer;
    } catch (error) {
      if (controller.signal.aborted && (error as Error)?.name === 'AbortPromptError') throw new GoBack();
      throw error;
    } finally {
      input.off('keypress', onKey);
    }
  };
}

export const select = withEscape(selectPrompt) as typeof selectPrompt;
export const input = withEscape(inputPrompt) as typeof inputPrompt;
export const confirm = withEscape(confirmPrompt) as typeof confirmPrompt;
export const checkbox = withEscape(checkboxPrompt) as typeof checkboxPrompt;

export const backChoice = { value: BACK_CHOICE, name: '← Back' } as const;

/** Ctrl-C in a prompt (inquirer's ExitPromptError), whatever module threw it. */
export function isPromptExit(error: unknown): boolean {
  return (error as Error | undefined)?.name === 'ExitPromptError';
}
