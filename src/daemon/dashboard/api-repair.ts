import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ApiConfig } from '../../core/config/schema.js';
import { exampleValues } from '../../core/config/url-template.js';
import { openConfigForEdit, saveEditedConfig } from '../../core/edit/config-file.js';
import { baselineFor, expectedData, type Health } from '../../core/health/field-health.js';
import { repairIsolated } from '../../core/health/isolated-repair.js';
import { readProposal, removeProposal } from '../../core/health/proposals.js';
import { judgeRepair } from '../../core/health/repair-verdict.js';
import { readSnapshots } from '../../core/health/snapshots.js';
import { PagejsonError } from '../../core/shared/errors.js';
import { ApiIdParam, parse, type DashboardApiContext } from './api-common.js';

/**
 * The endpoint page's repair (issue 47 item 3): what `pagejson heal` shows before it saves, for the dashboard.
 * The daemon's stored proposal, measured again on the page as it is now, else a fresh repair from the last good
 * values; the change field by field, what was not repaired or was refused, the health now and with the repair.
 * `save` works the repair out again and writes it only under the never-worse rule, over the revision the user
 * looked at (a file changed since is refused, never merged).
 */
const RepairBody = z
  .object({
    /** The revision the user looked at: a save over a file changed since is refused. */
    baseRevision: z.number().int().min(1),
    save: z.boolean().default(false),
  })
  .strict();

const judged = (health: Health) => ({ state: health.state, failing: health.failing, findings: health.findings });

export function registerRepairRoutes(api: FastifyInstance, context: DashboardApiContext): void {
  const { runtime } = context;

  async function lastGood(config: ApiConfig) {
    const snapshots = await readSnapshots(runtime.project.configsDir, config.apiId).catch(() => []);
    const status = (await runtime.store.listEndpointStatus()).find((each) => each.apiId === config.apiId);
    const baseline = baselineFor(
      config,
      status?.baseline,
      snapshots.map((snapshot) => snapshot.record.data),
    );
    const expected = (snapshots.at(0)?.record.data ?? baseline?.sample ?? expectedData(config)) as Record<string, unknown> | undefined;
    return { baseline, expected };
  }

  api.post('/endpoints/:apiId/repair', async (request) => {
    const { apiId } = parse(ApiIdParam, request.params, 'apiId');
    const body = parse(RepairBody, request.body, 'repair');
    const config = runtime.configs.get(apiId);
    const file = runtime.configs.fileOf(apiId);
    if (!config || !file) throw new PagejsonError('CONFIG_NOT_FOUND', `no endpoint "${apiId}"`, { hint: 'reload the list' });
    if (config.revision !== body.baseRevision)
      throw new PagejsonError('CONFIG_EXISTS', `${apiId} is at revision ${config.revision}, you looked at ${body.baseRevision}`, {
        hint: 'reload the endpoint, then look at the repair again',
      });
    const { baseline, expected } = await lastGood(config);
    if (!expected)
      throw new PagejsonError('USAGE', `${apiId} has no last good values to repair from`, {
        hint: `take a snapshot while it works (\`pagejson snapshot ${apiId}\`)`,
      });
    const stored = await readProposal(runtime.project.configsDir, apiId, config.revision);
    const page = await context.pages.page(config, exampleValues(config));
    const { fetch, extraction, models } = runtime.settings;
    const proposal = await repairIsolated(
      { config, html: page.html, pageUrl: page.finalUrl, expected, ...(stored ? { stored } : {}) },
      {
        models,
        env: runtime.env,
        fetchTimeoutMs: fetch.timeoutMs,
        extractionTimeoutMs: extraction.timeoutMs,
        limits: { maxDepth: extraction.maxDepth, maxElements: extraction.maxElements },
        dataDir: runtime.project.dataDir,
      },
    );
    const { now, withRepair, verdict } = judgeRepair(config, proposal, baseline);
    const nothingToDo = proposal.changes.length === 0;
    let written = false;
    if (body.save && !nothingToDo && verdict.better) {
      const editable = await openConfigForEdit(file, runtime.settings);
      if (editable.original.revision !== config.revision)
        throw new PagejsonError('CONFIG_EXISTS', `${apiId} changed since it was loaded`, { hint: 'reload the endpoint' });
      await saveEditedConfig(editable, proposal.config, runtime.project.dataDir);
      await removeProposal(runtime.project.configsDir, apiId);
      await runtime.configs.reload();
      written = true;
    }
    return {
      apiId,
      source: stored ? 'proposal' : 'heal',
      by: proposal.by,
      fromRevision: proposal.fromRevision,
      toRevision: proposal.config.revision,
      recovery: proposal.recovery,
      changes: proposal.changes,
      unrepaired: proposal.unrepaired,
      refused: proposal.refused,
      now: judged(now),
      withRepair: judged(withRepair),
      better: !nothingToDo && verdict.better,
      ...(nothingToDo ? { reason: 'nothing to repair: the selectors already find the last good values' } : {}),
      ...(!nothingToDo && verdict.reason ? { reason: `nothing would be saved: ${verdict.reason}` } : {}),
      written,
    };
  });
}
