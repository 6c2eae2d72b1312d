// Module resolve hook (runs in the loader thread): appends each resolved URL to LOADED_LOG.
import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  if (process.env.LOADED_LOG) appendFileSync(process.env.LOADED_LOG, `${result.url}\n`);
  return result;
}
