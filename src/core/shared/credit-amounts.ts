// Credits are counted in integer milli-credits so that sums are exact (docs/decisions.md, credits).

/** Credits as users type them (`100`, `0.5`) to milli-credits; sub-milli fractions are rounded. */
export function toMilli(credits: number): number {
  return Math.round(credits * 1000);
}

/** Milli-credits as a decimal number of credits (for `--json`): 99600 → 99.6. */
export function fromMilli(milli: number): number {
  return milli / 1000;
}

/** "", ".001", … ".999": the decimals of 0–999 milli-credits without trailing zeros (".5", not ".500"). */
const DECIMALS = Array.from({ length: 1000 }, (_, milli) => (milli === 0 ? '' : `.${String(milli).padStart(3, '0').replace(/0+$/, '')}`));

/**
 * Milli-credits for people: 400 → "0.4", 100000 → "100", 99600 → "99.6". Every answer's credits header goes
 * through here: whole milli-credits (every balance) are printed by integer arithmetic, without the shortest
 * decimal search of a float's String() (a few percent of a cache hit's own work); anything else as before.
 */
export function formatCredits(milli: number): string {
  if (!Number.isSafeInteger(milli)) return String(fromMilli(milli));
  const magnitude = milli < 0 ? -milli : milli;
  const credits = Math.floor(magnitude / 1000);
  return `${milli < 0 ? '-' : ''}${credits}${DECIMALS[magnitude - credits * 1000]!}`;
}
