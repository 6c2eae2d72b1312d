import type { Writable } from 'node:stream';

/** What a command needs from its surroundings, passed in so that nothing reads globals at import time. */
export interface CliContext {
  cwd: string;
  env: Record<string, string | undefined>;
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable & { isTTY?: boolean };
  /** Prompts only when both stdin and stdout are terminals and an input is missing. */
  interactive: boolean;
  /** Exit code set by a command that finished without throwing but must report failure (validate). */
  exitCode: number;
  /**
   * The command runs as the process itself (bin/pagejson.js), not inside a test or another program: `serve`
   * may then replace the process to give the daemon its V8 flags (daemon-flags.ts).
   */
  ownsProcess?: boolean;
}

export function createProcessContext(): CliContext {
  return {
    cwd: process.cwd(),
    env: process.env,
    stdout: process.stdout,
    stderr: process.stderr,
    interactive: Boolean(process.stdin.isTTY && process.stdout.isTTY) && process.env.CI !== 'true',
    exitCode: 0,
    ownsProcess: true,
  };
}

export function writeLine(stream: Writable, text = ''): void {
  stream.write(`${text}\n`);
}

export function writeJson(stream: Writable, value: unknown): void {
  stream.write(`${JSON.stringify(value, null, 2)}\n`);
}
