import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import * as init from './init.js';
import * as validate from './validate.js';
import * as list from './list.js';
import * as show from './show.js';
import * as run from './run.js';
import * as schema from './schema.js';
import * as openapi from './openapi.js';
import * as serve from './serve.js';
import * as generate from './generate.js';
import * as keys from './keys.js';
import * as credits from './credits.js';
import * as usage from './usage.js';
import * as status from './status.js';
import * as dashboard from './dashboard.js';
import * as edit from './edit.js';
import * as diff from './diff.js';
import * as snapshot from './snapshot.js';
import * as test from './test.js';
import * as check from './check.js';
import * as heal from './heal.js';
import * as mcp from './mcp.js';
import * as monitor from './monitor.js';
import * as webhooks from './webhooks.js';
import * as jobs from './jobs.js';
import * as worker from './worker.js';

/** Each command file exports `register(program, ctx)`; adding a command is one line here. */
export type RegisterCommand = (program: Command, ctx: CliContext) => void;

// In the order of the workflow, which is the order `pagejson --help` lists them.
export const commandModules: RegisterCommand[] = [
  init.register,
  generate.register,
  edit.register,
  diff.register,
  validate.register,
  list.register,
  show.register,
  run.register,
  jobs.register,
  snapshot.register,
  test.register,
  check.register,
  heal.register,
  monitor.register,
  webhooks.register,
  schema.register,
  openapi.register,
  serve.register,
  worker.register,
  dashboard.register,
  mcp.register,
  keys.register,
  credits.register,
  usage.register,
  status.register,
];
