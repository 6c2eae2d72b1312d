import type { Command } from 'commander';
import { execFile } from 'node:child_process';
import { appendFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { promisify } from 'node:util';
import type { ApiConfig } from '../../core/config/schema.js';
import type { ConfigChange } from '../../core/edit/describe-changes.js';
import { PagejsonError } from '../../core/shared/errors.js';
import { displayPath, loadProjectConfigs, requireConfig } from '../config-files.js';
import { writeJson, writeLine, type CliContext } from '../context.js';
import { colors } from '../output.js';

const run = promisify(execFile);

/**
 * `pagejson diff <apiId> [--against REV|GITREF] [--format text|json|github]`: what changed between the
 * working file and a git revision, in words, for pull-request review. `--against 3` means the last commit
 * in which the file had config revision 3; anything else is a git ref (default HEAD).
 */
export function register(program: Command, ctx: CliContext): void {
  program
    .command('diff')
    .description('describe what changed in a config since a git revision (default HEAD), in words')
    .argument('<apiId>', 'the endpoint to compare')
    .option('--against <REV|GITREF>', 'a config revision number or a git ref', 'HEAD')
    .option('--format <format>', 'text, json, or github (Markdown for a job summary)', 'text')
    .action(async (apiId: string, options: { against: string; format: string }, command: Command) => {
      if (!['text', 'json', 'github'].includes(options.format)) {
        throw new PagejsonError('USAGE', `unknown --format "${options.format}"`, { hint: 'use text, json or github' });
      }
      const { project, set } = await loadProjectConfigs(command, ctx);
      const current = requireConfig(project, set, apiId, ctx.cwd);
      const file = set.files.get(apiId)!;
      const gitRoot = await gitTopLevel(project.root);
      const pathInRepo = relative(gitRoot, file);
      const { before, ref } = await loadOldRevision(gitRoot, pathInRepo, options.against, file);
      const { describeChanges } = await import('../../core/edit/describe-changes.js');
      const changes = before
        ? describeChanges(before, current)
        : [{ kind: 'added' as const, subject: apiId, text: `new endpoint ${apiId} (not in ${ref})` }];
      const summary = {
        apiId,
        file: displayPath(file, ctx.cwd),
        against: ref,
        fromRevision: before?.revision ?? null,
        toRevision: current.revision,
        changes,
      };
      if (options.format === 'json') writeJson(ctx.stdout, summary);
      else if (options.format === 'github') {
        const markdown = githubSummary(summary);
        ctx.stdout.write(markdown);
        // In GitHub Actions the same text goes to the job summary page.
        if (ctx.env.GITHUB_STEP_SUMMARY) await appendFile(ctx.env.GITHUB_STEP_SUMMARY, markdown);
      } else {
        const c = colors(ctx.stdout, ctx.env);
        writeLine(
          ctx.stdout,
          c.bold(`${apiId}: ${ref}${before ? ` (revision ${before.revision})` : ''} → working file (revision ${current.revision})`),
        );
        if (changes.length === 0) writeLine(ctx.stdout, '  no changes');
        for (const change of changes) writeLine(ctx.stdout, `  ${c.cyan('•')} ${change.text}`);
      }
    });
}

async function gitTopLevel(dir: string): Promise<string> {
  try {
    return (await run('git', ['rev-parse', '--show-toplevel'], { cwd: dir })).stdout.trim();
  } catch {
    throw new PagejsonError('USAGE', 'this project is not in a git repository', {
      hint: 'diff compares with git history: run it inside the repository that holds the configs',
    });
  }
}

async function showAt(gitRoot: string, ref: string, pathInRepo: string): Promise<string | undefined> {
  try {
    return (await run('git', ['show', `${ref}:${pathInRepo}`], { cwd: gitRoot, maxBuffer: 16 * 1024 * 1024 })).stdout;
  } catch {
    return undefined;
  }
}

async function loadOldRevision(
  gitRoot: string,
  pathInRepo: string,
  against: string,
  file: string,
): Promise<{ before?: ApiConfig; ref: string }> {
  const { parseConfigText } = await import('../../core/registry/load.js');
  if (/^[0-9]+$/.test(against)) {
    const log = await run('git', ['log', '--format=%H', '--', pathInRepo], { cwd: gitRoot }).catch(() => ({ stdout: '' }));
    for (const commit of log.stdout.split('\n').filter(Boolean)) {
      const text = await showAt(gitRoot, commit, pathInRepo);
      const parsed = text === undefined ? undefined : parseConfigText(text, file);
      if (parsed?.ok && parsed.config.revision === Number(against)) return { before: parsed.config, ref: commit.slice(0, 10) };
    }
    throw new PagejsonError('USAGE', `no commit holds revision ${against} of ${pathInRepo}`, {
      hint: 'pass a git ref instead, e.g. --against main',
    });
  }
  const verified = await run('git', ['rev-parse', '--verify', '--quiet', `${against}^{commit}`], { cwd: gitRoot }).catch(() => undefined);
  if (!verified)
    throw new PagejsonError('USAGE', `"${against}" is not a git revision here`, {
      hint: 'use a branch, tag or commit, e.g. --against origin/main, or a config revision number',
    });
  const text = await showAt(gitRoot, against, pathInRepo);
  if (text === undefined) return { ref: against };
  const parsed = parseConfigText(text, file);
  if (!parsed.ok)
    throw new PagejsonError('CONFIG_INVALID', `${pathInRepo} at ${against} is not a valid config: ${parsed.problems[0]?.message}`, {
      hint: 'compare with another revision',
    });
  return { before: parsed.config, ref: against };
}

function githubSummary(summary: {
  apiId: string;
  against: string;
  fromRevision: number | null;
  toRevision: number;
  changes: ConfigChange[];
}): string {
  const lines = [
    `### pagejson: \`${summary.apiId}\` (${summary.fromRevision === null ? 'new' : `revision ${summary.fromRevision}`} → ${summary.toRevision})`,
    '',
  ];
  if (summary.changes.length === 0) lines.push('No changes.');
  for (const change of summary.changes) lines.push(`- ${markdownChange(change.text)}`);
  return `${lines.join('\n')}\n`;
}

/**
 * A change in words as Markdown that shows config text and never becomes Markdown itself (a description
 * holding `# heading`, `![](…)`, `[link](…)` or HTML). Quoted values become code spans, whose content GitHub
 * shows as it is; the rest has every Markdown punctuation character escaped. Line breaks become spaces, so
 * nothing can start a block of its own. Quotes inside a value may pair up wrongly: both kinds of piece are
 * safe, so a wrong pairing only changes the look.
 */
export function markdownChange(text: string): string {
  const oneLine = text.replace(/[\r\n\u2028\u2029]+/g, ' ');
  return oneLine
    .split(/("[^"]*")/)
    .map((piece) =>
      piece.length > 2 && piece.startsWith('"') && piece.endsWith('"') ? codeSpan(piece.slice(1, -1)) : escapeMarkdown(piece),
    )
    .join('');
}

/** Backslash before every ASCII punctuation character CommonMark lets escape; `www.` and `://` lose their link meaning with it. */
function escapeMarkdown(text: string): string {
  return text.replace(/[!-/:-@[-`{-~]/g, (char) => `\\${char}`);
}

/** A code span fenced by more backticks than any run inside it (CommonMark 6.1), padded when it starts or ends with one. */
function codeSpan(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = /^[` ]|[` ]$/.test(text) ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}
