import type { Command } from 'commander';
import type { CliContext } from '../context.js';

/** Each command file exports `register(program, ctx)`; adding a command is one line here. */
export type RegisterCommand = (program: Command, ctx: CliContext) => void;

export const commandModules: RegisterCommand[] = [];
