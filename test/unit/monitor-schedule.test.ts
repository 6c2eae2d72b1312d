import { describe, expect, it } from 'vitest';
import { parseSchedule, scheduleProblem } from '../../src/core/config/schedule.js';

/** Schedules as pure functions of time: slots are the same in every daemon, jitter spreads monitors. */
const MINUTE = 60_000;
const T0 = Date.parse('2026-03-02T10:00:00.000Z');

describe('monitor schedules', () => {
  it("cuts a duration into slots of that length, shifted by the monitor's own offset", () => {
    const schedule = parseSchedule('15m', 'books');
    const first = schedule.next(T0);
    const second = schedule.next(first.at);
    expect(second.at - first.at).toBe(15 * MINUTE);
    expect(Number(second.id)).toBe(Number(first.id) + 1);
    // current() is the slot due at or before now, next() the first after.
    expect(schedule.current(first.at)).toEqual(first);
    expect(schedule.current(first.at - 1)!.id).toBe(String(Number(first.id) - 1));
    expect(schedule.current(second.at - 1)).toEqual(first);
  });

  it('gives every daemon the same slots for the same monitor', () => {
    expect(parseSchedule('1h', 'jobs#2').next(T0)).toEqual(parseSchedule('1h', 'jobs#2').next(T0));
  });

  it('spreads a thousand monitors of "15m" over minutes instead of one second', () => {
    const perSecond = new Map<number, number>();
    for (let i = 0; i < 1_000; i += 1) {
      const second = Math.floor(parseSchedule('15m', `endpoint-${i}`).next(T0).at / 1000);
      perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
    }
    // Offsets are spread over the first 10 minutes of each quarter-hour: ~490 distinct seconds, a handful at most in any one.
    expect(perSecond.size).toBeGreaterThan(400);
    expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(10);
  });

  it('reads cron expressions in UTC and shifts each occurrence by less than a minute', () => {
    const schedule = parseSchedule('0 9 * * 1-5', 'daily');
    const next = schedule.next(Date.parse('2026-03-06T12:00:00Z')); // a Friday after nine
    expect(next.id).toBe('2026-03-09T09:00:00.000Z'); // Monday
    expect(next.at - Date.parse(next.id)).toBeGreaterThanOrEqual(0);
    expect(next.at - Date.parse(next.id)).toBeLessThan(MINUTE);
    expect(schedule.current(next.at)!.id).toBe(next.id);
    expect(schedule.current(next.at - 1)!.id).toBe('2026-03-06T09:00:00.000Z');
  });

  it('refuses what it cannot run, saying what to write', () => {
    expect(scheduleProblem('15m')).toBeUndefined();
    expect(scheduleProblem('*/5 * * * *')).toBeUndefined();
    expect(scheduleProblem('10s')).toMatch(/more often than once a minute/);
    expect(scheduleProblem('* * * * * *')).toMatch(/more often than once a minute/);
    expect(scheduleProblem('15 minutes')).toMatch(/use s, m, h or d/);
    expect(scheduleProblem('often')).toMatch(/neither a duration/);
    expect(scheduleProblem('61 * * * *')).toMatch(/not a valid cron expression/);
  });
});
