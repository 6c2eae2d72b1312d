/**
 * The structure engine: a config's field tree compiled into an extraction (selectors, transforms, types),
 * the JSON Schema of the `data` it yields, and the selector tools the edit and generate screens use.
 */
export {
  compileStructure,
  isEmptyValue,
  outlineStructure,
  type CompiledStructure,
  type Extraction,
  type ModelField,
  type StructureOutline,
} from './compile.js';
export { getCompiledStructure, getStructureOutline, clearCompiledStructures } from './memo.js';
export { dataJsonSchema, JSON_SCHEMA_DIALECT } from './json-schema.js';
export {
  parseHtml,
  selectSection,
  validateSelector,
  compileSelector,
  visibleText,
  type CompiledSelector,
  type HtmlDocument,
} from './dom.js';
export { previewSelector, type PreviewOptions } from './preview.js';
export {
  applyTransforms,
  compileTransform,
  coerceToType,
  validateTransform,
  type CompiledTransform,
  type TransformContext,
} from './transforms.js';
export { webUrlsIn, webUrlsOnly } from './model-values.js';
export { isCleanAmount, isCleanNumber, parseLocaleNumber } from './numbers.js';
export { parseDateToIso } from './dates.js';
export { parseJsonPath, parseLooseJson, resolveJsonPath } from './json-path.js';
