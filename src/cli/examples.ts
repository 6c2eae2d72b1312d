/**
 * The examples every command's `--help` ends with, by full command name. Commands that print their own
 * (check, test, heal, snapshot, mcp, monitor, webhooks) are not listed here; a test walks every command and
 * checks that each help ends with real examples one way or the other.
 */
export const EXAMPLES: Record<string, string[]> = {
  init: ['pagejson init', 'pagejson init --yes', 'pagejson init --yes --json'],
  generate: [
    'pagejson generate https://books.toscrape.com/ --selector "ol.row" --yes',
    'pagejson generate https://example.com/jobs --id jobs --scraper 3',
    'pagejson generate https://example.com/shop/shoes?page=1 --var query:page=page --model local --rule "names and prices"',
  ],
  edit: [
    'pagejson edit books',
    'pagejson edit books --add books.rating:number=.star-rating --dry-run',
    'pagejson edit books --set caching=false --set monitor.every=1h',
  ],
  diff: ['pagejson diff books', 'pagejson diff books --against 2', 'pagejson diff books --against origin/main --format github'],
  validate: ['pagejson validate', 'pagejson validate configs/books.json --format json', 'pagejson validate --live'],
  list: ['pagejson list', 'pagejson list --json'],
  show: ['pagejson show books', 'pagejson show books --json'],
  run: ['pagejson run books', 'pagejson run search --var q=shoes --json', 'pagejson run books --scraper 3'],
  schema: ['pagejson schema books', 'pagejson schema books --json > books.schema.json'],
  openapi: ['pagejson openapi > openapi.json', 'pagejson openapi --server https://api.example.com --json'],
  serve: ['pagejson serve', 'pagejson serve --port 9090', 'PAGEJSON_REDIS_URL=redis://127.0.0.1:6379 pagejson serve --host 0.0.0.0'],
  worker: ['pagejson worker --redis redis://10.0.0.5:6379', 'PAGEJSON_REDIS_URL=redis://10.0.0.5:6379 pagejson worker'],
  dashboard: ['pagejson dashboard', 'pagejson dashboard --no-open', 'pagejson dashboard --json'],
  keys: ['pagejson keys create --label ci', 'pagejson keys list', 'pagejson keys revoke k_3f9a2c1b'],
  'keys create': [
    'pagejson keys create',
    'pagejson keys create --label ci --scope books,jobs',
    'pagejson keys create --account acme --json',
  ],
  'keys list': ['pagejson keys list', 'pagejson keys list --json'],
  'keys revoke': ['pagejson keys revoke k_3f9a2c1b', 'pagejson keys revoke k_3f9a2c1b --json'],
  'keys rotate': ['pagejson keys rotate k_3f9a2c1b', 'pagejson keys rotate k_3f9a2c1b --grace 24h --json'],
  credits: ['pagejson credits', 'pagejson credits grant 500', 'pagejson credits --account acme --json'],
  'credits grant': ['pagejson credits grant 500', 'pagejson credits grant 100 --account acme'],
  usage: ['pagejson usage', 'pagejson usage --api books --days 7', 'pagejson usage --key k_3f9a2c1b --json'],
  status: ['pagejson status', 'pagejson status --json'],
  'monitor list': ['pagejson monitor list', 'pagejson monitor list --json'],
  'monitor history': ['pagejson monitor history jobs', 'pagejson monitor history jobs --limit 5 --json'],
  'monitor run': ['pagejson monitor run jobs', 'pagejson monitor run jobs --json'],
  'webhooks test': [
    'pagejson webhooks test https://example.com/hooks',
    'pagejson webhooks test https://example.com/hooks --secret-env MY_SECRET --json',
  ],
  'webhooks list': ['pagejson webhooks list', 'pagejson webhooks list --json'],
};

export function examplesText(lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => `  ${line}`).join('\n')}`;
}
