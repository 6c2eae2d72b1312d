import { createHash } from 'node:crypto';
import { Cron } from 'croner';

/**
 * When a monitor runs. `every` is a duration ("90s", "15m", "2h", "1d") or a five- or six-field cron
 * expression (UTC, parsed by croner). Time is cut into slots: a slot is one scheduled run, named so that
 * every daemon computes the same name for it (the lease that makes a run happen once is taken per slot).
 *
 * Jitter: each monitor's slots are shifted by an offset derived from its id, the same in every daemon, so a
 * thousand monitors of "15m" spread over the quarter-hour instead of firing in one second. A duration's
 * offset may be anywhere in the period (at most 10 minutes); a cron occurrence is shifted by up to a minute
 * (and never by more than a tenth of the gap to the next occurrence).
 */
export interface Slot {
  /** Stable name of the slot: the interval's index, or the cron occurrence's ISO time. */
  id: string;
  /** When it is due, ms since the epoch (jitter included). */
  at: number;
}

export interface Schedule {
  readonly every: string;
  /** The latest slot due at or before `now` (undefined when the schedule has not started yet). */
  current(now: number): Slot | undefined;
  /** The first slot due after `now`. */
  next(now: number): Slot;
}

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
export const MIN_INTERVAL_MS = 60_000;
const MAX_DURATION_JITTER_MS = 600_000;
const MAX_CRON_JITTER_MS = 60_000;

/** A reason the schedule cannot be used, or undefined. */
export function scheduleProblem(every: string): string | undefined {
  try {
    parseSchedule(every, 'check');
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** A number in [0, range) derived from the monitor's id: the same in every daemon. */
function offsetOf(id: string, range: number): number {
  if (range <= 0) return 0;
  const digest = createHash('sha256').update(id).digest();
  return digest.readUInt32BE(0) % Math.floor(range);
}

export function parseSchedule(every: string, monitorId: string): Schedule {
  const text = every.trim();
  const duration = /^(\d{1,6})\s*(s|m|h|d)$/i.exec(text);
  if (duration) {
    const period = Number(duration[1]) * UNITS[duration[2]!.toLowerCase()]!;
    if (period < MIN_INTERVAL_MS) throw new Error(`"${every}" is more often than once a minute; write "1m" or longer`);
    const offset = offsetOf(monitorId, Math.min(period, MAX_DURATION_JITTER_MS));
    const slotAt = (index: number): Slot => ({ id: String(index), at: index * period + offset });
    return {
      every: text,
      current: (now) => (now < offset ? undefined : slotAt(Math.floor((now - offset) / period))),
      next: (now) => slotAt(Math.floor((now - offset) / period) + 1),
    };
  }
  if (/^\d+(\.\d+)?\s*[a-z]+$/i.test(text)) throw new Error(`"${every}" is not a duration pagejson reads: use s, m, h or d, e.g. "15m"`);
  const fields = text.split(/\s+/);
  if (fields.length < 5 || fields.length > 6)
    throw new Error(`"${every}" is neither a duration ("15m", "1h") nor a cron expression of five fields ("*/15 * * * *")`);
  let cron: Cron;
  try {
    cron = new Cron(text, { paused: true, timezone: 'UTC' });
  } catch (error) {
    throw new Error(`"${every}" is not a valid cron expression: ${(error as Error).message}`);
  }
  const probe = cron.nextRuns(3, new Date(0));
  if (probe.length < 2) throw new Error(`"${every}" never fires again`);
  const gap = Math.min(...probe.slice(1).map((date, index) => date.getTime() - probe[index]!.getTime()));
  if (gap < MIN_INTERVAL_MS) throw new Error(`"${every}" fires more often than once a minute`);
  const offset = offsetOf(monitorId, Math.min(MAX_CRON_JITTER_MS, gap / 10));
  const slotOf = (occurrence: Date): Slot => ({ id: occurrence.toISOString(), at: occurrence.getTime() + offset });
  return {
    every: text,
    current(now) {
      // The latest occurrence at or before now - offset: croner looks forwards only, so step from a bound back.
      const before = cron.previousRuns(1, new Date(now - offset + 1)).at(0);
      return before ? slotOf(before) : undefined;
    },
    next(now) {
      const after = cron.nextRun(new Date(now - offset));
      if (!after) throw new Error(`"${every}" never fires again`);
      return slotOf(after);
    },
  };
}
