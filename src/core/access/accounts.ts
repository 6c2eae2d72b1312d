import { PagejsonError, toMilli, wireText } from '../shared/index.js';
import { checkAccountName, DEFAULT_ACCOUNT } from './key-service.js';
import type { StateStore } from '../state/index.js';

/**
 * Account balances over a StateStore. Accounts are created on first use with `credits.freeCredits`
 * (pagejson.json). Amounts cross this module's boundary in milli-credits.
 */
export interface CreditSettings {
  enabled: boolean;
  /** In credits, as pagejson.json says it. */
  freeCredits: number;
}

export interface AccountBalance {
  account: string;
  milliCredits: number;
}

/** The wire's message (src/core/shared/error-table.ts): generation refuses with the same words as retrieval. */
export const NO_CREDITS_MESSAGE = wireText('NO_CREDITS');

export function noCreditsError(account: string, balance: number, cost: number): PagejsonError {
  return new PagejsonError('NO_CREDITS', NO_CREDITS_MESSAGE, {
    context: { account, balance, cost },
    hint: `this pagejson is yours: add credits with \`pagejson credits grant 100${account === DEFAULT_ACCOUNT ? '' : ` --account ${account}`}\` (or set credits.enabled to false in pagejson.json to meter without a limit)`,
  });
}

export async function accountBalance(store: StateStore, account: string | undefined, settings: CreditSettings): Promise<AccountBalance> {
  const name = checkAccountName(account ?? DEFAULT_ACCOUNT);
  const found = await store.ensureAccount(name, toMilli(settings.freeCredits));
  return { account: name, milliCredits: found.balance };
}

export async function grantCredits(
  store: StateStore,
  account: string | undefined,
  milliCredits: number,
  settings: CreditSettings,
): Promise<AccountBalance> {
  if (!Number.isSafeInteger(milliCredits) || milliCredits <= 0) {
    throw new PagejsonError('USAGE', 'the amount to grant must be a positive number of credits', {
      hint: 'e.g. `pagejson credits grant 50`',
    });
  }
  const name = checkAccountName(account ?? DEFAULT_ACCOUNT);
  await store.ensureAccount(name, toMilli(settings.freeCredits));
  return { account: name, milliCredits: await store.grant(name, milliCredits) };
}

/**
 * Takes a cost before the work it pays for (generation): refused with NO_CREDITS when the balance is short.
 * With credits disabled nothing is taken and nothing is refused.
 */
export async function chargeCredits(
  store: StateStore,
  account: string | undefined,
  milliCredits: number,
  settings: CreditSettings,
): Promise<AccountBalance> {
  const name = checkAccountName(account ?? DEFAULT_ACCOUNT);
  const found = await store.ensureAccount(name, toMilli(settings.freeCredits));
  if (!settings.enabled) return { account: name, milliCredits: found.balance };
  const result = await store.reserve(name, milliCredits);
  if (!result.ok) throw noCreditsError(name, result.balance, milliCredits);
  return { account: name, milliCredits: result.balance };
}
