import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * One of pagejson's optional native parts (`native/<dir>`, built at install by scripts/build-native.mjs), from
 * the sources (tests run them) or from dist/; undefined where it was not built or does not load (another
 * platform, another Node ABI), and its caller goes on without it.
 */
export function loadNativeAddon<T>(dir: string, name: string): T | undefined {
  const addon = `native/${dir}/build/Release/${name}.node`;
  for (const up of ['../../../', '../../../../']) {
    const file = fileURLToPath(new URL(up + addon, import.meta.url));
    if (!existsSync(file)) continue;
    try {
      return createRequire(import.meta.url)(file) as T;
    } catch {
      return undefined;
    }
  }
  return undefined;
}
