// `node --import <this file>`: logs the URL of every module the process resolves to the file in LOADED_LOG
// (tests of what a command loads at start).
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
