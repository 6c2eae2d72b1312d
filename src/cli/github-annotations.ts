/**
 * GitHub workflow command escaping (https://github.com/actions/toolkit/blob/main/packages/core/src/command.ts),
 * in a module of its own: `test` and `validate` both write annotations, and importing it must not load the
 * config model (zod) at every CLI start.
 */
export function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}
