export { DEFAULT_DOCUMENT_LIMITS, sectionRoots, useDocumentLimits, type DocumentLimits } from './engine/dom.js';
export { fieldContexts, fieldMatches } from './engine/field-context.js';
export {
  compileSelector,
  compileStructure,
  dataJsonSchema,
  getStructureOutline,
  isEmptyValue,
  parseHtml,
  selectSection,
  validateSelector,
  validateTransform,
  type HtmlDocument,
} from './engine/index.js';
export { webUrlsIn, webUrlsOnly } from './engine/index.js';
export { htmlToText } from './engine/html-text.js';
export { parseLooseJson } from './engine/json-path.js';
export { isCleanAmount, isCleanNumber, parseLocaleNumber } from './engine/numbers.js';
export { isUnreadElement } from './engine/reading.js';
export { candidateSections } from './engine/sections.js';
export { selectorCostProblem } from './engine/selector-cost.js';
export {
  allElements,
  attr,
  classesOf,
  cssModulePrefix,
  elementChildren,
  firstDescendant,
  isElement,
  isInside,
  isStableClass,
  ownText,
  parentElement,
  quoteAttributeValue,
  rawText,
  selectIn,
  stableClasses,
  textOf,
  type Document,
  type Element,
} from './page/dom.js';
export { groupSelector, relativeCandidates, relativeSelector, relativeSelectorAll, sampleOf, uniqueSelector } from './page/selectors.js';
export { createInProcessExtractor, type Extractor } from './workers/index.js';
export { createWorkerPoolExtractor } from './workers/index.js';
export { builtWorkerFile, extractionTimeout, runInThread, THREAD_STARTED, type ThreadOptions, type ThreadReply } from './workers/index.js';
export { mergePages, paginationListField, type PageMerge, type PageMergeOptions } from './page-merge.js';
export { nextLinkHref } from './engine/next-link.js';
export { paginationProposal, proposeNextLink, type NextLinkProposal } from './page/next-link-proposal.js';
