/**
 * Allocation sampling for a daemon under load:
 * `BENCH_DAEMON_NODE_OPTIONS="--require $PWD/dist/bench/alloc-sampler.cjs"` (CommonJS, for `--require`).
 * After a 4 s warm-up it samples allocations for 5 s, counting objects already collected too (what a CPU
 * profile shows only as garbage collection), and writes `BENCH_ALLOC_OUT` (default `alloc.heapprofile` in the
 * daemon's directory), which Chrome DevTools opens.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded with --require
import inspector = require('node:inspector');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded with --require
import fs = require('node:fs');

const session = new inspector.Session();
session.connect();
setTimeout(() => {
  session.post(
    'HeapProfiler.startSampling',
    { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true },
    () => {
      setTimeout(() => {
        session.post('HeapProfiler.stopSampling', (error, result) => {
          if (!error) fs.writeFileSync(process.env.BENCH_ALLOC_OUT || 'alloc.heapprofile', JSON.stringify(result.profile));
        });
      }, 5_000).unref();
    },
  );
}, 4_000).unref();
