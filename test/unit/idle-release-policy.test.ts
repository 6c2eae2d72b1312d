import { describe, expect, it } from 'vitest';
import { createReleasePolicy, DEFAULT_RELEASE_POLICY } from '../../src/core/extract/workers/idle-release.js';

/** The wait before an idle extraction pool gives its heap back, on a clock of our own. */
describe('the idle release policy', () => {
  it('starts at the shortest wait and keeps it while no release has happened', () => {
    const policy = createReleasePolicy(DEFAULT_RELEASE_POLICY);
    expect(policy.delayMs()).toBe(2_000);
    policy.jobStarted(1_000);
    policy.jobStarted(50_000);
    expect(policy.delayMs()).toBe(2_000);
  });

  it('doubles the wait each time work comes back soon after a release, up to the longest', () => {
    const policy = createReleasePolicy(DEFAULT_RELEASE_POLICY);
    let at = 0;
    const waits: number[] = [];
    // Bursts every 5 s: each release is followed by work 5 s later.
    for (let burst = 0; burst < 8; burst += 1) {
      at += policy.delayMs();
      policy.released(at);
      at += 5_000;
      policy.jobStarted(at);
      waits.push(policy.delayMs());
    }
    expect(waits).toEqual([4_000, 8_000, 16_000, 32_000, 64_000, 64_000, 64_000, 64_000]);
  });

  it('halves the wait back toward the shortest after a release followed by a long quiet spell', () => {
    const policy = createReleasePolicy(DEFAULT_RELEASE_POLICY);
    policy.released(0);
    policy.jobStarted(1_000);
    policy.released(10_000);
    policy.jobStarted(12_000);
    expect(policy.delayMs()).toBe(8_000);
    policy.released(100_000);
    policy.jobStarted(200_000);
    expect(policy.delayMs()).toBe(4_000);
    policy.released(300_000);
    policy.jobStarted(400_000);
    policy.released(500_000);
    policy.jobStarted(600_000);
    expect(policy.delayMs()).toBe(2_000);
  });

  it('counts only the first job after a release', () => {
    const policy = createReleasePolicy(DEFAULT_RELEASE_POLICY);
    policy.released(0);
    policy.jobStarted(100);
    policy.jobStarted(200);
    policy.jobStarted(300);
    expect(policy.delayMs()).toBe(4_000);
  });
});
