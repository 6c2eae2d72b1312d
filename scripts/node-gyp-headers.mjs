#!/usr/bin/env node
// Puts the headers of the Node running this into node-gyp's cache, where `npm ci` finds them when it builds
// the native addons (scripts/lib/node-gyp-headers.mjs says why). `.ci/run` runs it before `npm ci`.
import { realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import { provideNodeGypHeaders } from './lib/node-gyp-headers.mjs';
import { npmCli } from './lib/steps.mjs';

const prefix = dirname(dirname(realpathSync(process.execPath)));
const dir = await provideNodeGypHeaders({ prefix, version: process.versions.node, npmCliFile: npmCli() });
process.stdout.write(`node-gyp finds the headers of Node ${process.version} (${prefix}/include/node) in ${dir}\n`);
