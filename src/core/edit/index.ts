export { openConfigForEdit, saveEditedConfig } from './config-file.js';
export { describeChanges, type ConfigChange } from './describe-changes.js';
