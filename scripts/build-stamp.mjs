// Last step of `npm run build`: records the stamp of the sources dist/ was built from, so that the tests'
// ensureBuilt (test/support/build-once.ts) does not build a second time right after `npm test` built.
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { sourceStamp, stampFile } from './lib/build-stamp.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
await writeFile(stampFile(root), `${await sourceStamp(root)}\n`);
