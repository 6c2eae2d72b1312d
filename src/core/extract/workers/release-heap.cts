/**
 * Gives a thread's V8 heap back to the system: a full collection that also shrinks the young generation and
 * unmaps the pages left empty. An extraction thread that parsed a burst of pages keeps its grown heap (~33 MB,
 * half of it garbage and empty young-generation space) until its next full collection, which an idle thread
 * never runs; this returns it to what is live (docs/performance.md, "Memory").
 *
 * Node has no API for V8's LowMemoryNotification; the inspector's `HeapProfiler.collectGarbage`, on a session
 * of the thread's own, is that call. Where Node was built without the inspector nothing is released.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- CommonJS, as the worker that loads it
import v8 = require('node:v8');
import type * as Inspector from 'node:inspector';
import type { WireReleaseReply } from './types.js';

type InspectorModule = typeof Inspector;
let inspector: InspectorModule | null | undefined;

function loadInspector(): InspectorModule | null {
  if (inspector !== undefined) return inspector;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first release, not at thread start
    inspector = process.features.inspector ? (require('node:inspector') as InspectorModule) : null;
  } catch {
    inspector = null;
  }
  return inspector;
}

async function releaseHeap(): Promise<WireReleaseReply> {
  const heapBytesBefore = v8.getHeapStatistics().total_heap_size;
  const module = loadInspector();
  if (module === null) return { released: false, heapBytesBefore, heapBytesAfter: heapBytesBefore };
  const session = new module.Session();
  session.connect();
  try {
    await new Promise<void>((resolve, reject) =>
      session.post('HeapProfiler.collectGarbage', (error) => (error ? reject(error) : resolve())),
    );
  } finally {
    session.disconnect();
  }
  return { released: true, heapBytesBefore, heapBytesAfter: v8.getHeapStatistics().total_heap_size };
}

export = { releaseHeap };
