export { type FieldType, VARIABLE_NAME_PATTERN } from './constants.js';
export { jsonSyntaxProblems, locateProblems } from './locate.js';
export { monitorProblems } from './monitor-rules.js';
export { formatZodIssues, jsonPath, type ConfigProblem } from './problems.js';
export { parseSchedule, type Schedule } from './schedule.js';
export { changedSettings } from './settings-changes.js';
export {
  API_ID_PATTERN,
  ApiConfigSchema,
  FIELD_TYPES,
  FieldSchema,
  SCALAR_TYPES,
  type ApiConfig,
  type Field,
  type ModelEndpoint,
  type ProjectSettings,
  type ScalarItems,
  type ScalarType,
  type ScraperNumber,
  type Variable,
  type WebhookEventType,
  type WebhookSubscriber,
} from './schema.js';
export {
  compileSafePattern,
  MAX_PATTERN_LENGTH,
  MAX_PATTERN_PROGRAM,
  PatternProblem,
  safePatternProblem,
  type PatternUse,
  type SafePattern,
} from '../shared/index.js';
export {
  MAX_VARIABLE_LENGTH,
  callerVariableNames,
  checkVariableValues,
  hasCallerVariables,
  isDynamic,
  markVariable,
  ownVariable,
  PLACEHOLDER_PATTERN,
  placeholderNames,
  resolveSourceUrl,
  templateProblems,
  unmarkVariable,
} from './url-template.js';
export { CONFIG_SCHEMA_REF, serializeConfig, writeConfigFile } from './write.js';
export { DEFAULT_MAX_INPUT_TOKENS, DEFAULT_MODEL_MAX_RETRIES } from './model-endpoint.js';
export { type Project } from './project.js';
export { MIN_WEBHOOK_SECRET_BYTES, WEBHOOK_SECRET_HINT, webhookSecretProblem, webhookSecretProblems } from './webhook-secret.js';
export {
  ALLOWED_SECRETS_VARIABLE,
  SECRET_HINT,
  SECRET_NAME_PATTERN,
  allowedSecretNames,
  assertSecretsAllowed,
  hasSecrets,
  resolveSecretRecord,
  resolveSecrets,
  secretNames,
  secretProblems,
  secretTemplate,
  secretNotAllowedError,
  secretUnsetError,
  unsetSecretNames,
  withAllowedSecrets,
  type SecretUse,
} from './secrets.js';
export { configSecretNames, secretUses, type SecretParts } from './secret-uses.js';
export {
  HEADER_NAME_PATTERN,
  MAX_REQUEST_COOKIES,
  MAX_REQUEST_HEADERS,
  REFUSED_HEADERS,
  RequestSchema,
  isCookieValue,
  requestTexts,
  type RequestSettings,
} from './request.js';
export {
  MAX_PROXY_URLS,
  PROXY_ROTATIONS,
  ProxyListSchema,
  ProxySchema,
  proxyHasCredentials,
  proxyLabel,
  proxyUrlProblem,
  type ProxyList,
  type ProxyRotation,
  type ProxySettings,
  type ProxySettingsInput,
} from './proxy.js';
export {
  BROWSER_KINDS,
  BrowserSchema,
  browserKindOf,
  browserUrlLabel,
  browserUrlProblem,
  DEFAULT_MAX_SESSIONS,
  type BrowserKind,
  type BrowserSettings,
} from './browser.js';
export {
  MASK,
  accessRows,
  displayCookieValue,
  displayHeaderValue,
  displayProxy,
  displayProxyUrl,
  displayRequest,
  withAccessShown,
} from './access-display.js';
export {
  BROWSER_PAGINATION_KINDS,
  DEFAULT_MAX_PAGES,
  MAX_ITEMS,
  MAX_PAGES,
  PAGINATION_KINDS,
  PaginationSchema,
  describePagination,
  pageStartOf,
  pageUrl,
  pageVariableOf,
  paginationKind,
  type PaginationInput,
  type PaginationKind,
  type PaginationSettings,
} from './pagination.js';
export { ActionSchema, ActionsSchema, MAX_SELECTOR_LENGTH, MAX_TEXT_LENGTH, MAX_WAIT_MS, PRESS_KEY_PATTERN } from './actions.js';
export {
  ACTION_VERBS,
  MAX_ACTIONS,
  actionSteps,
  actionValuesKey,
  actionVariableNames,
  actionVerb,
  countActions,
  describeAction,
  describeActions,
  fillActionText,
  malformedPlaceholder,
  type Action,
  type ActionVerb,
} from './action-text.js';
export { LOGIN_KINDS, LoginSchema, MAX_LOGIN_FIELDS, loginTexts, loginUrlProblem, type LoginSettings } from './login.js';
export { LOGIN_MASK, describeLogin, displayLogin, withLoginShown } from './login-display.js';
export { CREDENTIAL_FIELD, isTemplateOnly } from './template-only.js';
