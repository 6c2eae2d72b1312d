import type { CliContext } from './context.js';

/**
 * Long work (fetching, generation, browser start) shows a spinner on a terminal and nothing on a pipe, so
 * scripts and CI logs get only the result. ora is loaded only when a spinner is actually shown.
 */
export interface Spinner {
  update(text: string): void;
  succeed(text: string): void;
  stop(): void;
}

const SILENT: Spinner = { update: () => undefined, succeed: () => undefined, stop: () => undefined };

export async function startSpinner(ctx: CliContext, text: string): Promise<Spinner> {
  if (!ctx.interactive || !ctx.stderr.isTTY) return SILENT;
  const { default: ora } = await import('ora');
  const spinner = ora({ text, stream: ctx.stderr, isEnabled: true }).start();
  return {
    update: (next) => {
      spinner.text = next;
    },
    succeed: (done) => {
      spinner.succeed(done);
    },
    stop: () => {
      if (spinner.isSpinning) spinner.stop();
    },
  };
}
