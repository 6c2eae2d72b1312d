import type { Command } from 'commander';
import type { Project } from '../core/config/project.js';
import type { CliContext } from './context.js';

/** The project of a command: `--project` from the root program, else searched upward from cwd. */
export async function projectFor(command: Command, ctx: CliContext): Promise<Project> {
  const root = command.parent ? rootOf(command) : command;
  const projectDir = root.opts<{ project?: string }>().project;
  // Loaded here, not at start-up: `pagejson --help` should not pay for zod and the config model.
  const { loadProject } = await import('../core/config/project.js');
  return loadProject({ cwd: ctx.cwd, projectDir, env: ctx.env });
}

function rootOf(command: Command): Command {
  let current = command;
  while (current.parent) current = current.parent;
  return current;
}
