import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

/**
 * Baseline of the cached-GET figure: a bare Fastify route that checks the same `apikey` digest and sends
 * the same bytes as the daemon's cache hit. Everything pagejson adds on a hit is measured against this.
 */
const body = readFileSync(process.env.BENCH_BODY_FILE!, 'utf8');
const digest = Buffer.from(process.env.BENCH_KEY_DIGEST!, 'hex');
const app = Fastify({ logger: false });
app.get('/external/:apiId', (request, reply) => {
  const key = request.headers.apikey;
  const given = typeof key === 'string' ? createHash('sha256').update(key).digest() : Buffer.alloc(32);
  if (!timingSafeEqual(given, digest)) {
    reply.code(401).send({ data: null, errors: [{ message: 'invalid key' }] });
    return;
  }
  reply.header('content-type', 'application/json; charset=utf-8').send(body);
});
await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`baseline ready on http://127.0.0.1:${app.server.address() && (app.server.address() as { port: number }).port}\n`);

// Exit normally on SIGTERM, so that a --cpu-prof run writes its profile.
process.on('SIGTERM', () => process.exit(0));
