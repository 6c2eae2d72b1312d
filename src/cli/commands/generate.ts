import type { Command } from 'commander';
import type { ScraperNumber } from '../../core/config/schema.js';
import { collectVar, parseScraperNumber } from '../config-files.js';
import type { CliContext } from '../context.js';

export interface GenerateFlags {
  id?: string;
  scraper?: ScraperNumber;
  session?: boolean;
  model?: string;
  selector?: string;
  rule?: string;
  cache: boolean;
  /** false with --no-paginate: no pagination.next proposal. */
  paginate: boolean;
  var: string[];
  /** --header 'Name: value' and --proxy URL (docs/access.md), repeatable. */
  header: string[];
  proxy: string[];
  /** --login URL|JSON, --login-field name=value (repeatable), --logged-in SELECTOR (docs/access.md, "Logins"). */
  login?: string;
  loginField: string[];
  loggedIn?: string;
  /** --actions JSON | --actions-file FILE, --var-example name=value (docs/actions.md). */
  actions?: string;
  actionsFile?: string;
  varExample: string[];
  yes?: boolean;
  force?: boolean;
  json?: boolean;
}

/**
 * `pagejson generate <url>`: fetch a page, let a model propose a structure with selectors, show it with
 * sample values, and save it as configs/<apiId>.json. On a terminal it asks for what its flags left out and
 * for a review; elsewhere every input is a flag and `--yes` is the review.
 */
export function register(program: Command, ctx: CliContext): void {
  program
    .command('generate')
    .description('generate an endpoint config from a web page with a model, review it, and save it')
    .argument('[url]', 'the page to turn into an endpoint')
    .option('--id <apiId>', 'API id and file name (default: derived from the URL)')
    .option('--scraper <n>', 'scraper: 1 plain HTTP, 2 Crawlee HTTP, 3 headless Chromium (default 1)', parseScraperNumber)
    .option('--session', 'scraper 1: visit the site origin first and fetch with its session cookies')
    .option('--model <name>', 'model: heuristic (default, offline), a `models` entry of pagejson.json, or openai:<model>')
    .option('--selector <css>', 'CSS selector of the section to extract (default body)')
    .option('--rule <text>', 'free-text rule that tells the model what to extract')
    .option('--no-cache', 'serve every request fresh instead of caching for 15 minutes')
    .option('--no-paginate', 'do not propose pagination.next when the page has a next link (docs/pagination.md)')
    .option('--var <place=NAME>', 'make a URL part dynamic: path:N=NAME or query:PARAM=NAME (repeatable)', collectVar, [])
    .option(
      '--header <"Name: value">',
      'send this header with every fetch of the page, kept in the config as typed (${NAME} is read from the environment; repeatable)',
      collectVar,
      [],
    )
    .option(
      '--proxy <url>',
      'fetch through this HTTP(S) proxy, kept in the config as typed (http://${USER}:${PASS}@host:port; repeatable: taken in turn)',
      collectVar,
      [],
    )
    .option(
      '--login <url|json>',
      'sign in before fetching: the login page, whose form is posted with --login-field values (or a whole login as JSON, e.g. with browser steps); kept in the config as typed',
    )
    .option(
      '--login-field <name=value>',
      "a field of the login form, e.g. 'password=${SITE_PASSWORD}' (${NAME} is read from the environment; repeatable)",
      collectVar,
      [],
    )
    .option('--logged-in <css>', 'an element only a signed-in visitor sees: its absence means the session ended')
    .option('--actions <json>', "browser steps run on the page before it is read, as a config's `actions` (scraper 3); kept in the config")
    .option('--actions-file <file>', 'the same steps from a JSON file')
    .option('--var-example <name=value>', 'the value a {{ name }} the actions type is generated with (repeatable)', collectVar, [])
    .option('-y, --yes', 'save without review (required when not on a terminal)')
    .option(
      '--force',
      'replace an existing config of that id (its revision is bumped; its actions, login, headers, proxies and pagination are kept unless given anew)',
    )
    .option('--json', 'print {apiId, file, revision, structure, sample}')
    .action(async (url: string | undefined, flags: GenerateFlags, command: Command) => {
      // The pipeline (parsers, scrapers, state) loads only when generate runs, not for every CLI start.
      const { runGenerate } = await import('./generate-run.js');
      await runGenerate(url, flags, command, ctx);
    });
}
