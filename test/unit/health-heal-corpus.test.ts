import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { healStructure, judgeHealth, recoveryOf, seedBaseline } from '../../src/core/health/index.js';
import { createHeuristicModel } from '../../src/core/models/heuristic/index.js';
import { compileStructure, selectSection } from '../../src/core/extract/engine/index.js';
import { redesign } from '../support/redesign.js';

/**
 * Repair quality on a corpus: every page of test/fixtures/eval gets a config from the heuristic, then a
 * generic redesign (test/support/redesign.ts). The old config must be detected as not healthy wherever the
 * redesign broke it, and `heal` must bring back the values it extracted. Figures go to docs/heuristic.md.
 */
const evalDir = fileURLToPath(new URL('../fixtures/eval/', import.meta.url));
const names = readdirSync(evalDir)
  .filter((name) => !name.startsWith('.'))
  .sort();

describe('repair quality on redesigned pages', () => {
  it('detects every broken config and recovers at least 90% of the old values', async () => {
    const model = createHeuristicModel();
    const rows: string[] = [];
    let found = 0;
    let total = 0;
    let undetected = 0;
    for (const name of names) {
      const html = readFileSync(join(evalDir, name, 'page.html'), 'utf8');
      const { url, selector } = JSON.parse(readFileSync(join(evalDir, name, 'expected.json'), 'utf8')) as { url: string; selector: string };
      const { structure } = await model.generate({
        sectionHtml: selectSection(html, selector).sectionHtml,
        pageHtml: html,
        pageUrl: url,
        selector,
        rule: null,
      });
      const config = { apiId: 'corpus', selector, structure };
      const before = compileStructure(config).extract(html, url).data;
      const changed = redesign(html);
      const stale = compileStructure(config).extract(changed, url).data;
      const staleRecovery = recoveryOf(before, stale);
      const health = judgeHealth(structure, stale, seedBaseline(structure, [before]));
      // Broken = the old config lost most of its values; it must never look healthy. (A partial loss, a few
      // fields of many, is reported in `failing` but may stay healthy, as the health rules say.)
      const broken = staleRecovery.found * 2 < staleRecovery.total;
      if (broken && health.state === 'healthy') undetected += 1;
      if (staleRecovery.found < staleRecovery.total) expect(health.failing.length, name).toBeGreaterThan(0);
      const healed = healStructure({ config, html: changed, pageUrl: url, expected: before });
      found += healed.recovery.found;
      total += healed.recovery.total;
      rows.push(
        `${name.padEnd(30)} ${`${staleRecovery.found}/${staleRecovery.total}`.padStart(9)} ${health.state.padEnd(9)} ${`${healed.recovery.found}/${healed.recovery.total}`.padStart(9)}`,
      );
    }
    console.log(
      `${'page'.padEnd(30)} ${'stale'.padStart(9)} ${'health'.padEnd(9)} ${'healed'.padStart(9)}\n${rows.join('\n')}\nmean recovery ${(found / total).toFixed(3)} (${found}/${total}); undetected ${undetected}`,
    );
    expect(undetected).toBe(0);
    // The target of issue 9 (today 0.934; docs/heuristic.md has the figure and what still fails).
    expect(found / total).toBeGreaterThanOrEqual(0.9);
  });
});
