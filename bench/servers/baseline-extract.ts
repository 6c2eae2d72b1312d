import Fastify from 'fastify';
import { compile, selectAll, selectOne } from 'css-select';
import { getAttributeValue, textContent } from 'domutils';
import { parseDocument } from 'htmlparser2';
import type { AnyNode, Element } from 'domhandler';
import { Agent, request } from 'undici';
import { LISTING_FIELDS, LISTING_ITEM_SELECTOR } from '../pages.js';

/**
 * Baseline of the uncached-GET figure: the least a hand-written service can do per request, in one
 * process: undici.request to the source, htmlparser2 parseDocument, precompiled css-select queries.
 */
const sourceUrl = process.env.BENCH_SOURCE_URL!;
const agent = new Agent({ keepAliveTimeout: 60_000, connections: 4 });
const title = compile('h1');
const items = compile(LISTING_ITEM_SELECTOR);
const fields = LISTING_FIELDS.map((f) => ({ ...f, query: compile(f.selector) }));

const app = Fastify({ logger: false });
app.get('/external/:apiId', async (_request, reply) => {
  const response = await request(sourceUrl, { dispatcher: agent });
  const doc = parseDocument(await response.body.text());
  const heading = selectOne<AnyNode, Element>(title, doc);
  const data = {
    title: heading ? textContent(heading).trim() : null,
    items: selectAll<AnyNode, Element>(items, doc).map((item) => {
      const out: Record<string, string | null> = {};
      for (const field of fields) {
        const node = selectOne<AnyNode, Element>(field.query, item);
        out[field.name] = node
          ? 'attribute' in field
            ? (getAttributeValue(node, field.attribute) ?? null)
            : textContent(node).trim()
          : null;
      }
      return out;
    }),
  };
  reply.header('content-type', 'application/json; charset=utf-8').send(JSON.stringify({ data, errors: null }));
});
await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`baseline ready on http://127.0.0.1:${(app.server.address() as { port: number }).port}\n`);

// Exit normally on SIGTERM, so that a --cpu-prof run writes its profile.
process.on('SIGTERM', () => process.exit(0));
