export {
  checkSourceUrl,
  DEFAULT_SELECTOR,
  defaultApiId,
  generateConfig,
  parseVarFlag,
  type GenerateDeps,
  type GenerateRequest,
  type GenerateResult,
} from './generate.js';
export { generateIsolated, generationBudgetMs, type IsolatedGenerateDeps } from './isolated.js';
