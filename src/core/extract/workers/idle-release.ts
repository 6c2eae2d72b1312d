import type { WireReleaseReply, WireReleaseTask } from './types.js';

/**
 * When an idle extraction pool gives its threads' heaps back (release-heap.cts).
 *
 * A thread keeps what a burst of pages grew its heap to (~33 MB against ~13 MB live in the memory figure),
 * since an idle thread never collects. A release is not free: the memory-reducing collection lets go of what
 * the thread's optimised code held weakly, V8 throws that code away, and the next misses run cold (on the
 * bench's 100 KB page ~30 ms for the first extraction instead of ~2, ~11 ms on average for the first twenty;
 * ~200 ms of the thread's time in all, besides the release's own 20–65 ms).
 *
 * So the wait adapts. It starts short (2 s: a burst that ends gives its memory back soon). When work comes
 * back within `regretMs` of a release, that release bought little and cost the returning work its warm code:
 * the next wait doubles, up to `maxMs`. When a release is followed by a long quiet spell, the wait halves back
 * toward `minMs`. A daemon with a one-off burst releases after 2 s; one whose misses come in bursts every few
 * seconds stops releasing after two or three tries.
 */
export interface ReleasePolicy {
  /** How long the pool waits without a job before releasing. */
  delayMs(): number;
  released(atMs: number): void;
  jobStarted(atMs: number): void;
}

export interface ReleasePolicyOptions {
  minMs: number;
  maxMs: number;
  regretMs: number;
}

export const DEFAULT_RELEASE_POLICY: ReleasePolicyOptions = { minMs: 2_000, maxMs: 64_000, regretMs: 30_000 };

export function createReleasePolicy({ minMs, maxMs, regretMs }: ReleasePolicyOptions): ReleasePolicy {
  let delay = minMs;
  let releasedAt: number | undefined;
  return {
    delayMs: () => delay,
    released(atMs) {
      releasedAt = atMs;
    },
    jobStarted(atMs) {
      if (releasedAt === undefined) return;
      delay = atMs - releasedAt < regretMs ? Math.min(maxMs, delay * 2) : Math.max(minMs, delay / 2);
      releasedAt = undefined;
    },
  };
}

export interface IdleReleaseOptions {
  /** The shortest wait (0: never release). */
  minMs: number;
  onRelease?: (reply: WireReleaseReply) => void;
}

/**
 * Watches the pool's jobs; once it has had none for the policy's delay, posts one release task per thread
 * (each idle thread takes one). Releases are not jobs: they do not re-arm the timer, and a job that comes
 * meanwhile waits for one release at most.
 */
export function watchIdlePool(
  runRelease: (task: WireReleaseTask) => Promise<WireReleaseReply>,
  threads: number,
  options: IdleReleaseOptions,
  isClosed: () => boolean,
) {
  const policy = createReleasePolicy({
    ...DEFAULT_RELEASE_POLICY,
    minMs: options.minMs,
    maxMs: Math.max(options.minMs, DEFAULT_RELEASE_POLICY.maxMs),
  });
  const release: WireReleaseTask = { release: true };
  let running = 0;
  let timer: NodeJS.Timeout | undefined;
  const releaseAll = (): void => {
    timer = undefined;
    if (isClosed() || running > 0) return;
    policy.released(Date.now());
    for (let thread = 0; thread < threads; thread += 1) {
      runRelease(release).then(
        (reply) => options.onRelease?.(reply),
        // A pool closed meanwhile: nothing to release.
        () => undefined,
      );
    }
  };
  return {
    jobStarted(): void {
      running += 1;
      policy.jobStarted(Date.now());
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
    jobEnded(): void {
      running -= 1;
      if (running > 0 || options.minMs <= 0 || isClosed()) return;
      timer = setTimeout(releaseAll, policy.delayMs());
      timer.unref();
    },
    stop(): void {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}
