export { type ConfigRegistry } from './config-registry.js';
export { parseConfigText, readConfigFileText } from './load.js';
export { checkConfigAgainstProject, checkConfigRules } from './validate.js';
export { createConfigRegistry, type ConfigRegistryEvent } from './config-registry.js';
