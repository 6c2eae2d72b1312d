import { closeSync, openSync, writeSync } from 'node:fs';
import { Agent, request } from 'undici';
import { ApiConfigSchema } from '../../src/core/config/schema.js';
import { getCompiledStructure } from '../../src/core/extract/engine/index.js';
import { jobItemConfig } from '../job-pages.js';

/**
 * The jobs figure's baseline (bench/jobs.ts): what a hand-written runner does for the same job, in one process:
 * a pool of `BENCH_CONCURRENCY` loops over the inputs, undici to the source, the same compiled extraction as
 * pagejson's, one NDJSON line per input appended to `BENCH_OUT`.
 */
const origin = process.env.BENCH_ORIGIN!;
const total = Number(process.env.BENCH_N);
const concurrency = Number(process.env.BENCH_CONCURRENCY);
const config = ApiConfigSchema.parse(jobItemConfig(origin));
const agent = new Agent({ keepAliveTimeout: 60_000, connections: concurrency });
const out = openSync(process.env.BENCH_OUT!, 'a');

let next = 0;
async function loop(): Promise<void> {
  while (next < total) {
    const index = next++;
    const url = `${origin}/jobs/item?id=i${index}`;
    const response = await request(url, { dispatcher: agent });
    const html = await response.body.text();
    const { data } = getCompiledStructure(config).extract(html, url);
    writeSync(
      out,
      `${JSON.stringify({ index, input: { id: `i${index}` }, outcome: 'data', data, fetchedAt: new Date().toISOString() })}\n`,
    );
  }
}
await Promise.all(Array.from({ length: concurrency }, loop));
closeSync(out);
await agent.close();
