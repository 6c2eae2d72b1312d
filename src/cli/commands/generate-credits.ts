import type { Project } from '../../core/config/project.js';
import { noCreditsError, type AccountBalance } from '../../core/access/accounts.js';
import type { TokenUsage } from '../../core/models/types.js';
import { DEFAULT_ACCOUNT } from '../../core/access/key-service.js';
import { isPagejsonError } from '../../core/shared/errors.js';
import { openStateClient } from '../state-client.js';

/**
 * Generation costs credits from the default account (0.25, 0.35 with JS rendering: the README's credits table). The balance
 * is checked before the work, so a user without credits never waits for a fetch and a model call that will
 * not be saved, and charged after the generation succeeded, so a failed fetch or model costs nothing.
 * Both go through the state client: the daemon's admin socket when a daemon runs, else the store itself.
 */
export async function ensureGenerationCredits(project: Project, milliCredits: number): Promise<void> {
  if (!project.settings.credits.enabled) return;
  const client = await openStateClient(project);
  try {
    const balance = await client.credits(DEFAULT_ACCOUNT);
    if (balance.milliCredits < milliCredits) throw noCreditsError(balance.account, balance.milliCredits, milliCredits);
  } finally {
    await client.close();
  }
}

/**
 * Returns the balance after the charge, or undefined when credits are disabled (metering only). The charge and
 * the model's tokens (when it reported any) go into the usage of the generated apiId as a keyless row.
 */
export async function chargeGeneration(
  project: Project,
  milliCredits: number,
  generated?: { apiId: string; usage?: TokenUsage },
): Promise<AccountBalance | undefined> {
  const client = await openStateClient(project);
  try {
    const tokens = generated
      ? {
          apiId: generated.apiId,
          promptTokens: generated.usage?.promptTokens ?? 0,
          completionTokens: generated.usage?.completionTokens ?? 0,
        }
      : undefined;
    const balance = await client.charge(DEFAULT_ACCOUNT, milliCredits, tokens);
    return project.settings.credits.enabled ? balance : undefined;
  } finally {
    await client.close();
  }
}

/**
 * The model's tokens a command spent on an endpoint (`run` and `check` filling model fields, a model that failed
 * after answering: MODEL_FAILED carries them), recorded in its usage at no cost (docs/models.md, "Tokens").
 */
export function recordCommandTokens(project: Project, apiId: string, spent: unknown): Promise<void> {
  const usage = isPagejsonError(spent) ? spent.context.usage : spent;
  return recordUnsavedTokens(project, apiId, usage);
}

/**
 * The tokens of a generation that was not saved (a failed model, a review cancelled): recorded in the usage of
 * its apiId like any other (docs/models.md, "Tokens"), with no credits charged. Never the command's failure.
 */
export async function recordUnsavedTokens(project: Project, apiId: string, usage: unknown): Promise<void> {
  const spent = usage as Partial<TokenUsage> | undefined;
  const promptTokens = Number.isSafeInteger(spent?.promptTokens) ? spent!.promptTokens! : 0;
  const completionTokens = Number.isSafeInteger(spent?.completionTokens) ? spent!.completionTokens! : 0;
  if (promptTokens <= 0 && completionTokens <= 0) return;
  await chargeGeneration(project, 0, { apiId, usage: { promptTokens, completionTokens } }).catch(() => undefined);
}
