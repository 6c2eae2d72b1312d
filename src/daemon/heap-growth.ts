import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the old generation grow past what survived its last collection before it collects again.
 * Left to itself it picks a factor of up to 4 (about 2 in the daemon): after 10,000 fills of the memory figure
 * the main heap's old generation reached ~90–110 MB around ~45 MB live, pages V8 then kept committed, and the
 * RSS figure moved by ±25 MB with where in that cycle it was read. At 1.5 the collections stay V8's own
 * (incremental, on its helper threads), only sooner: the figure read 214–220 MB against 236–302 MB, and the
 * CPU per miss moved within this machine's noise in alternating runs (docs/performance.md, "Memory").
 *
 * `heap_growing_percent` is read each time V8 sets its next limit, so it holds when set after start. It is
 * process-wide: the extraction threads' heaps follow it too (they are mostly young generation).
 */
export const HEAP_GROWING_PERCENT = 50;

export function limitHeapGrowth(percent = HEAP_GROWING_PERCENT): void {
  setFlagsFromString(`--heap-growing-percent=${percent}`);
}
