import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { proposeStructure } from '../src/core/models/heuristic/index.js';
import { cleanHtml } from '../src/core/models/html-cleaner.js';
import { createOpenAiModel } from '../src/core/models/openai.js';
import { STRUCTURE_RESPONSE_SCHEMA } from '../src/core/models/openai-prompts.js';
import type { Field } from '../src/core/config/schema.js';
import { allElements, ownText, parseHtml, selectIn } from '../src/core/extract/index.js';
import { startFakeLlm, type RecordedRequest } from '../test/support/fake-llm.js';
import { listAtEndPage } from '../test/support/big-pages.js';
import { listingPage } from './pages.js';

/**
 * `npm run build && node dist/bench/model-tokens.js`: what a generation costs in model tokens when the model
 * starts from the heuristic's proposal and sees the page's regions (docs/models.md), against sending the page
 * as generation did before (the cleaned section, cut at its first 60,000 characters, with the system prompt of
 * then). Both ask the fake OpenAI-compatible server, which counts tokens as it is sent them (about 4 characters
 * a token) and replays, for each page, one recorded answer: the structure the heuristic proposes for it,
 * written as a model's reply. The answers being the same, the completion tokens are the same; the prompts
 * differ. Pages: the heuristic's evaluation corpus (test/fixtures/eval), the fixture site's listing and
 * product, a 300 KB listing and a 3 MB page whose list sits at its end. Figures printed; docs/models.md holds them.
 */
const here = fileURLToPath(new URL('.', import.meta.url));
const repoRoot = join(here, here.includes('/dist/') ? '../..' : '..');

/** The system prompt generation sent with the page before issue 37. */
const PAGE_SYSTEM_PROMPT = [
  'You design JSON APIs for web pages. You receive the cleaned HTML of one section of a page and propose the JSON',
  'structure of the data it holds, with a CSS selector per field that extracts the value from that HTML.',
  'Rules:',
  '- Field types: string, number, integer, boolean, url, date, object, array.',
  '- A repeated region (list items, cards, table rows) is an array whose selector matches each item and whose',
  '  `fields` have selectors relative to one item. An array of plain values uses `items` instead of `fields`.',
  '- Top-level selectors are matched inside the section. Prefer stable classes and ids over positions.',
  '- `attribute` reads an attribute (href for links, src for images, datetime, content); null reads the text.',
  '- `transform` is a list from: trim, number, integer, boolean, absoluteUrl, date, regex:<pattern with one group>,',
  '  json:<dotted.path>. Use number for prices, absoluteUrl for links and images.',
  '- Use a null selector only for a value that no element holds (it will be filled by a model later).',
  '- Field names are camelCase, unique within their level. Follow the extraction rule when one is given.',
].join('\n');

interface Page {
  name: string;
  html: string;
  url: string;
  selector: string;
  rule: string | null;
}

async function pages(): Promise<Page[]> {
  const found: Page[] = [];
  const evalDir = join(repoRoot, 'test/fixtures/eval');
  for (const name of (await readdir(evalDir)).sort()) {
    const expected = JSON.parse(await readFile(join(evalDir, name, 'expected.json'), 'utf8')) as {
      url: string;
      selector?: string;
      rule?: string | null;
    };
    const html = await readFile(join(evalDir, name, 'page.html'), 'utf8').catch(() => undefined);
    if (html) found.push({ name, html, url: expected.url, selector: expected.selector ?? 'body', rule: expected.rule ?? null });
  }
  for (const name of ['listing.html', 'product.html']) {
    found.push({
      name: `site/${name}`,
      html: await readFile(join(repoRoot, 'test/fixtures/site', name), 'utf8'),
      url: `http://127.0.0.1/${name}`,
      selector: 'body',
      rule: null,
    });
  }
  found.push({ name: 'listing-300KB', html: listingPage(60, 300_000), url: 'http://127.0.0.1/listing', selector: 'body', rule: null });
  found.push({
    name: 'news-front-300KB',
    html: newsFront(),
    url: 'http://127.0.0.1/',
    selector: 'body',
    rule: 'latest stories with their time',
  });
  found.push({
    name: 'list-at-end-3MB',
    html: listAtEndPage(),
    url: 'http://127.0.0.1/careers',
    selector: 'body',
    rule: 'jobs with salaries',
  });
  return found;
}

/**
 * A 300 KB news front page as sites write them: a menu of 150 links, teasers of alternating markup (headline,
 * standfirst, figure), a sidebar and a footer of link columns, the latest stories as a list below them.
 */
function newsFront(): string {
  const menu = Array.from(
    { length: 150 },
    (_, i) => `<li class="menu-item menu-item-${i}"><a href="/section/${i}">Section ${i}</a></li>`,
  ).join('');
  const teasers = Array.from(
    { length: 900 },
    (_, i) =>
      `<h3 class="headline"><a href="/story/${i}">Story ${i}: ${'words '.repeat(8)}</a></h3><p class="standfirst">${'A standfirst sentence. '.repeat(4)}</p><figure><img src="/img/${i}.jpg" alt="Picture ${i}"><figcaption>Photo ${i}</figcaption></figure>`,
  ).join('\n');
  const latest = Array.from(
    { length: 20 },
    (_, i) => `<li class="latest"><a href="/latest/${i}">Latest ${i}</a><time datetime="2026-11-25T0${i % 10}:00">${i % 10}:00</time></li>`,
  ).join('');
  const footer = Array.from(
    { length: 60 },
    (_, i) => `<div class="col-${i}"><h4>Column ${i}</h4><a href="/c/${i}/a">A</a><a href="/c/${i}/b">B</a></div>`,
  ).join('');
  return `<html><head><title>The Daily Fixture</title></head><body><nav><ul class="menu">${menu}</ul></nav><main><section class="front">${teasers}</section><aside><h2>Latest</h2><ul class="latest-list">${latest}</ul></aside></main><footer>${footer}</footer></body></html>`;
}

/** A structure as the reply schema writes it (every property present, null when absent). */
function asReply(field: Field): Record<string, unknown> {
  return {
    name: field.name,
    type: field.type,
    selector: field.selector ?? null,
    attribute: field.attribute ?? null,
    transform: field.transform ?? null,
    description: field.description ?? null,
    items: field.items ? { type: field.items.type, attribute: field.items.attribute ?? null } : null,
    fields: field.fields ? field.fields.map(asReply) : null,
  };
}

interface Row {
  page: string;
  bytes: number;
  /** Whether the list of the answer reached the model's prompt (its first item's selector class, in the HTML shown). */
  pageShowsList: boolean;
  regionsShowList: boolean;
  pagePromptTokens: number;
  regionsPromptTokens: number;
  completionTokens: number;
  ratio: number;
}

/** The text of the first item of the answer's first list, as it stands in the page's HTML (to look for it in a prompt). */
function firstItemText(html: string, structure: Array<Record<string, unknown>>): string | undefined {
  const list = structure.find((field) => field.type === 'array' && typeof field.selector === 'string');
  if (!list) return undefined;
  const [item] = selectIn(list.selector as string, parseHtml(html).children);
  // The first text of the item that stands in one element, as the cleaned HTML keeps it (entities aside).
  const holder = item ? allElements([item]).find((element) => /^[^&<>"]{6,}$/.test(ownText(element).trim().slice(0, 20))) : undefined;
  const text = holder ? ownText(holder).trim().slice(0, 20) : '';
  return text.length >= 3 ? text : undefined;
}

const userOf = (request: RecordedRequest): string => request.body.messages.find((message) => message.role === 'user')?.content ?? '';

async function measure(): Promise<Row[]> {
  const llm = await startFakeLlm([], { usage: 'counted' });
  const client = new OpenAI({ apiKey: 'bench', baseURL: llm.baseURL, maxRetries: 0 });
  const rows: Row[] = [];
  try {
    for (const page of await pages()) {
      const input = { sectionHtml: page.html, pageHtml: page.html, pageUrl: page.url, selector: page.selector, rule: page.rule };
      // The recorded answer for this page, replayed to both ways of asking.
      const answer = { structure: proposeStructure(input).structure.map(asReply) };
      llm.script(() => ({ json: answer }));
      const user = [
        `Page URL: ${page.url}`,
        `Section selector: ${page.selector}`,
        `Extraction rule: ${page.rule ?? '(none)'}`,
        'Section HTML:',
        cleanHtml(page.html),
      ].join('\n');
      await client.chat.completions.create({
        model: 'bench',
        messages: [
          { role: 'system', content: PAGE_SYSTEM_PROMPT },
          { role: 'user', content: user },
        ],
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'pagejson_structure', strict: true, schema: STRUCTURE_RESPONSE_SCHEMA as never },
        },
        temperature: 0,
      });
      const sent = { ...llm.reported };
      llm.script(() => ({ json: answer }));
      await createOpenAiModel({ name: 'bench', baseURL: llm.baseURL, apiKey: 'bench', model: 'bench', maxRetries: 0 }).generate(input);
      const regions = { ...llm.reported };
      const listText = firstItemText(page.html, answer.structure);
      const shown = (index: number): boolean => listText !== undefined && userOf(llm.requests.at(index)!).includes(listText);
      rows.push({
        page: page.name,
        bytes: page.html.length,
        pageShowsList: shown(-2),
        regionsShowList: shown(-1),
        pagePromptTokens: sent.promptTokens,
        regionsPromptTokens: regions.promptTokens,
        completionTokens: regions.completionTokens,
        ratio: regions.promptTokens / sent.promptTokens,
      });
    }
  } finally {
    await llm.close();
  }
  return rows;
}

const rows = await measure();
const total = (pick: (row: Row) => number): number => rows.reduce((sum, row) => sum + pick(row), 0);
for (const row of rows) {
  process.stdout.write(
    `${row.page.padEnd(30)} ${String(row.bytes).padStart(8)} B  page ${String(row.pagePromptTokens).padStart(6)}${row.pageShowsList ? ' ' : '*'}  regions ${String(row.regionsPromptTokens).padStart(6)}${row.regionsShowList ? ' ' : '*'}  ratio ${row.ratio.toFixed(2)}\n`,
  );
}
const summary = {
  pages: rows.length,
  pagePromptTokens: total((row) => row.pagePromptTokens),
  regionsPromptTokens: total((row) => row.regionsPromptTokens),
  fewerOn: rows.filter((row) => row.ratio < 1).length,
  /** Pages whose first list never reached the prompt (marked * above). */
  listMissedByPage: rows.filter((row) => !row.pageShowsList).map((row) => row.page),
  listMissedByRegions: rows.filter((row) => !row.regionsShowList).map((row) => row.page),
  medianRatio: [...rows.map((row) => row.ratio)].sort((a, b) => a - b)[Math.floor(rows.length / 2)]!,
};
process.stdout.write(`${JSON.stringify(summary)}\n`);
