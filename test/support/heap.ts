import { runInNewContext } from 'node:vm';
import v8 from 'node:v8';

/** Heap in use after full garbage collections: leak checks compare two of these, never timings. */
export function heapAfterGc(): number {
  v8.setFlagsFromString('--expose-gc');
  const collectGarbage = runInNewContext('gc') as () => void;
  for (let round = 0; round < 3; round += 1) collectGarbage();
  return process.memoryUsage().heapUsed;
}
