import { describe, expect, it } from 'vitest';
import { ApiConfigSchema, type ApiConfigInput } from '../../src/core/config/schema.js';
import { checkConfigRules } from '../../src/core/registry/validate.js';
import { monitorTargets } from '../../src/core/monitor/targets.js';

const config = (extra: Partial<ApiConfigInput>) =>
  ApiConfigSchema.parse({
    apiId: 'weather',
    url: 'https://example.com/weather/{{ city }}',
    variables: { city: { example: 'paris', pattern: '^[a-z]+$' } },
    structure: [{ name: 't', type: 'string', selector: 'h1' }],
    ...extra,
  });

describe('monitor targets', () => {
  it('watches each variable set of a dynamic config as its own monitor', () => {
    const targets = monitorTargets([config({ monitor: { every: '1h', variables: [{ city: 'paris' }, { city: 'lyon' }] } })]);
    expect(targets.map((target) => [target.monitorId, target.values])).toEqual([
      ['weather#1', { city: 'paris' }],
      ['weather#2', { city: 'lyon' }],
    ]);
    // Each set has its own jitter: the two runs of one endpoint do not hit the site in the same second.
    expect(targets[0]!.schedule.next(0).at).not.toBe(targets[1]!.schedule.next(0).at);
  });

  it('skips inactive configs and monitors that validate refuses, and validate says why', () => {
    expect(monitorTargets([config({ status: 'inactive', monitor: { every: '1h', variables: [{ city: 'paris' }] } })])).toEqual([]);
    const noSets = config({ monitor: { every: '1h' } });
    const badValue = config({ monitor: { every: '1h', variables: [{ city: '../admin' }] } });
    const badEvery = config({ monitor: { every: 'hourly', variables: [{ city: 'paris' }] } });
    expect(monitorTargets([noSets, badValue, badEvery])).toEqual([]);
    expect(checkConfigRules(noSets, 'weather.json').map((p) => p.message)).toContain(
      'a dynamic config needs monitor.variables: the variable sets to watch',
    );
    expect(checkConfigRules(badValue, 'weather.json').map((p) => p.path)).toContain('$.monitor.variables[0]');
    expect(checkConfigRules(badEvery, 'weather.json').find((p) => p.path === '$.monitor.every')?.message).toMatch(/neither a duration/);
  });
});
