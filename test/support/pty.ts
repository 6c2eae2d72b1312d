import { spawn, type IPty } from 'node-pty';
import { CLI_BIN } from './build-once.js';

/**
 * The CLI on a pseudo-terminal, as a person runs it: prompts draw, arrow keys move, Escape and Ctrl-C reach
 * the process as keys. `waitFor` reads the screen as text (colours and cursor moves stripped).
 */
export const KEY = {
  enter: '\r',
  down: '\u001b[B',
  up: '\u001b[A',
  escape: '\u001b',
  ctrlC: '\u0003',
  space: ' ',
} as const;

export interface PtyCli {
  /** Everything printed so far, without ANSI sequences. */
  text(): string;
  /** Resolves once the text printed after `since` (default: everything) matches; fails after `ms`. */
  waitFor(pattern: string | RegExp, ms?: number): Promise<void>;
  /** Marks the current end of the output: later waitFor calls look only past it. */
  mark(): void;
  type(keys: string): void;
  /** Types keys one by one, each once the screen has changed after the one before (prompts redraw per key). */
  press(...keys: string[]): Promise<void>;
  exited: Promise<number>;
  kill(): void;
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]|\u001b\][^\u0007]*\u0007|\u001b[()][A-Z0-9]|\u001b[>=]/g;

export function spawnCliOnPty(args: string[], options: { cwd: string; env?: Record<string, string> }): PtyCli {
  const child: IPty = spawn(process.execPath, [CLI_BIN, ...args], {
    name: 'xterm-256color',
    cols: 160,
    rows: 50,
    cwd: options.cwd,
    env: { ...process.env, NO_COLOR: '1', CI: '', FORCE_COLOR: '0', ...options.env } as Record<string, string>,
  });
  let output = '';
  let from = 0;
  const onOutput = new Set<() => void>();
  child.onData((data) => {
    output += data;
    for (const look of [...onOutput]) look();
  });
  const exited = new Promise<number>((resolve) => child.onExit(({ exitCode }) => resolve(exitCode)));
  const text = () => output.replace(ANSI, '');
  /** Resolves when `check` holds, looked at as output arrives; fails with `failure()` after `ms`. */
  const until = (check: () => boolean, ms: number, failure: () => string): Promise<void> =>
    new Promise((resolve, reject) => {
      const stop = () => {
        clearTimeout(timer);
        onOutput.delete(look);
      };
      const look = () => {
        if (!check()) return;
        stop();
        resolve();
      };
      const timer = setTimeout(() => {
        stop();
        reject(new Error(failure()));
      }, ms);
      onOutput.add(look);
      look();
    });
  return {
    text,
    mark: () => (from = text().length),
    waitFor(pattern, ms = 20_000) {
      const matches = () => {
        const seen = text().slice(from);
        return typeof pattern === 'string' ? seen.includes(pattern) : pattern.test(seen);
      };
      return until(matches, ms, () => `timed out waiting for ${String(pattern)}; the screen shows:\n${text().slice(-2000)}`);
    },
    type: (keys) => child.write(keys),
    async press(...keys) {
      for (const key of keys) {
        const before = output.length;
        child.write(key);
        // The prompt redraws once it has taken the key. Escape alone is taken only after readline's 500 ms
        // pause (how it tells it from the start of an escape sequence), so its redraw comes after that pause.
        await until(
          () => output.length > before,
          20_000,
          () => `nothing was drawn after the key ${JSON.stringify(key)}; the screen shows:\n${text().slice(-2000)}`,
        );
      }
    },
    exited,
    kill: () => child.kill(),
  };
}
