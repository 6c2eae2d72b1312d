/**
 * A deadline for work in flight that costs one timer in all rather than one per item: items enter in order,
 * one timer sweeps every `sweepMs` and hands each item older than `deadlineMs` to `expire`, oldest first,
 * stopping at the first young enough. An item that leaves before is never expired.
 *
 * The items in flight are a doubly linked list, not a Map. Under load a Map that items keep entering and
 * leaving is rehashed over and over, and V8 links each replaced table to its successor with the entries it
 * held then. Once one replaced table has reached the old generation, every later table is reachable from it
 * in a scavenge's eyes (old-to-young pointers count as roots there), and so is every item in flight when its
 * table was replaced: each scavenge found ~2 MB of requests "alive" and promoted them, 4–5 ms pauses and a
 * full collection every second or two under a load of cache hits (docs/performance.md, "Profiles" 12). A
 * node that leaves drops all its pointers, so nothing that has left keeps anything alive.
 */
export interface Backstop<T> {
  /** Starts the clock of `item` (never undefined); pass what it returns to `leave`. */
  enter(item: T): BackstopEntry;
  /** The item is done (answered): it will not be expired. Idempotent. */
  leave(entry: BackstopEntry): void;
  /** Items in flight (tests, metrics). */
  readonly size: number;
  close(): void;
}

/** Opaque to callers: a node of the list. */
export interface BackstopEntry {
  readonly __backstopEntry: true;
}

interface Node<T> {
  item: T | undefined;
  tick: number;
  previous: Node<T> | undefined;
  next: Node<T> | undefined;
}

export function createBackstop<T>(options: { deadlineMs: number; sweepMs: number; expire: (item: T) => void }): Backstop<T> {
  const { deadlineMs, sweepMs, expire } = options;
  let first: Node<T> | undefined;
  let last: Node<T> | undefined;
  let size = 0;
  let tick = 0;

  const unlink = (node: Node<T>): void => {
    if (node.item === undefined) return;
    if (node.previous) node.previous.next = node.next;
    else first = node.next;
    if (node.next) node.next.previous = node.previous;
    else last = node.previous;
    node.item = undefined;
    node.previous = undefined;
    node.next = undefined;
    size -= 1;
  };

  const timer = setInterval(() => {
    tick += 1;
    for (let node = first; node; node = first) {
      // An item entered up to one sweep after its tick began: count whole sweeps since, never early.
      if ((tick - node.tick - 1) * sweepMs < deadlineMs) break;
      const item = node.item as T;
      unlink(node);
      expire(item);
    }
  }, sweepMs);
  timer.unref();

  return {
    enter(item) {
      const node: Node<T> = { item, tick, previous: last, next: undefined };
      if (last) last.next = node;
      else first = node;
      last = node;
      size += 1;
      return node as unknown as BackstopEntry;
    },
    leave(entry) {
      unlink(entry as unknown as Node<T>);
    },
    get size() {
      return size;
    },
    close() {
      clearInterval(timer);
    },
  };
}
