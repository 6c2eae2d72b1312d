#!/usr/bin/env node
// `npm pack` runs this first (package.json "prepack", then `npm run build`): the package is built from a clean
// dist/, never with what an older build left there, and it carries the lockfile as npm-shrinkwrap.json, so
// that `npm install -g` of it installs the dependency versions this checkout was tested with (a package's
// package-lock.json is not used by its installs; its shrinkwrap is). "postpack" removes that copy again.
import { copyFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
rmSync(join(root, 'dist'), { recursive: true, force: true });
copyFileSync(join(root, 'package-lock.json'), join(root, 'npm-shrinkwrap.json'));
