export { type FieldType } from './constants.js';
export { jsonSyntaxProblems, locateProblems } from './locate.js';
export { monitorProblems } from './monitor-rules.js';
export { formatZodIssues, jsonPath, type ConfigProblem } from './problems.js';
export { parseSchedule, type Schedule } from './schedule.js';
export { API_ID_PATTERN, ApiConfigSchema, FIELD_TYPES, FieldSchema, SCALAR_TYPES, type ApiConfig, type Field, type ModelEndpoint, type ProjectSettings, type ScalarItems, type ScalarType, type ScraperNumber, type WebhookEventType, type WebhookSubscriber } from './schema.js';
export { MAX_VARIABLE_LENGTH, checkVariableValues, isDynamic, markVariable, ownVariable, placeholderNames, resolveSourceUrl, templateProblems, unmarkVariable } from './url-template.js';
export { CONFIG_SCHEMA_REF, serializeConfig, writeConfigFile } from './write.js';
export { type Project } from './project.js';
