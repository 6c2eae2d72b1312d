import { didYouMean } from '../core/shared/did-you-mean.js';
import type { Command } from 'commander';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ConfigSet } from '../core/registry/load.js';
import type { Project } from '../core/config/project.js';
import type { ApiConfig } from '../core/config/schema.js';
import { PagejsonError } from '../core/shared/errors.js';
import type { CliContext } from './context.js';
import { projectFor } from './project-option.js';

/** The project of a command and every config in it (invalid ones listed in `set.problems`). */
export async function loadProjectConfigs(command: Command, ctx: CliContext): Promise<{ project: Project; set: ConfigSet }> {
  const project = await projectFor(command, ctx);
  const { loadConfigDir } = await import('../core/registry/load.js');
  const set = await loadConfigDir(project.configsDir);
  return { project, set };
}

/** One config by apiId, or an error that says whether it is missing or broken and what to do. */
export function requireConfig(project: Project, set: ConfigSet, apiId: string, cwd: string): ApiConfig {
  const config = set.configs.get(apiId);
  if (config) return config;
  const brokenFile = join(project.configsDir, `${apiId}.json`);
  const problem = set.problems.find((p) => p.file === brokenFile);
  if (problem) {
    throw new PagejsonError('CONFIG_INVALID', `${displayPath(problem.file, cwd)} at ${problem.path}: ${problem.message}`, {
      context: { apiId, problems: set.problems.filter((p) => p.file === brokenFile) },
      hint: 'run `pagejson validate` to see every problem, then fix the file',
    });
  }
  const known = [...set.files.keys()];
  throw new PagejsonError(
    'CONFIG_NOT_FOUND',
    `no config with apiId "${apiId}" in ${displayPath(project.configsDir, cwd)}${didYouMean(apiId, known)}`,
    {
      context: { apiId },
      hint: known.length > 0 ? `known apiIds: ${known.join(', ')} (see \`pagejson list\`)` : 'create one with `pagejson generate <url>`',
    },
  );
}

/** Path for messages: relative to where the user stands, which is what they can click or type. */
export function displayPath(file: string, cwd: string): string {
  const rel = relative(cwd, file);
  if (rel === '') return '.';
  return rel.startsWith('..') ? file : rel;
}

let packageRootCache: string | undefined;

/**
 * The installed pagejson package's root (where package.json names "pagejson"): the published JSON Schemas
 * ship in its configs/ folder. Works from the sources and from dist/ alike.
 */
export function packageRoot(): string {
  if (packageRootCache) return packageRootCache;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'pagejson') return (packageRootCache = dir);
      } catch {
        // not ours; keep climbing
      }
    }
    const parent = dirname(dir);
    if (parent === dir) throw new PagejsonError('INTERNAL', 'cannot find the pagejson package folder', { hint: 'reinstall pagejson' });
    dir = parent;
  }
}

/** Parse the repeatable `--var NAME=VALUE` flag. */
export function collectVar(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function parseVarAssignments(assignments: string[]): Record<string, string> {
  const values: Record<string, string> = {};
  for (const assignment of assignments) {
    const at = assignment.indexOf('=');
    if (at <= 0) {
      throw new PagejsonError('USAGE', `--var "${assignment}" is not NAME=VALUE`, { hint: 'write --var NAME=VALUE, e.g. --var page=2' });
    }
    values[assignment.slice(0, at)] = assignment.slice(at + 1);
  }
  return values;
}

/** `--scraper 1|2|3`: a bad value is a usage error (exit 2) with a hint, like every other flag. */
export function parseScraperNumber(value: string): 1 | 2 | 3 {
  if (value === '1' || value === '2' || value === '3') return Number(value) as 1 | 2 | 3;
  throw new PagejsonError('USAGE', `--scraper must be 1, 2 or 3, not "${value}"`, {
    hint: 'scrapers: 1 = plain HTTP (session capable), 2 = Crawlee HTTP with browser fingerprints, 3 = headless Chromium',
  });
}
