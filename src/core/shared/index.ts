export { closest, didYouMean } from './did-you-mean.js';
export { PagejsonError, isPagejsonError, type ErrorCode } from './errors.js';
export { errorFromData, errorToData, type ErrorData } from './error-data.js';
export {
  FETCH_PREFIX,
  hasWireRow,
  INTERNAL_ROW,
  JOB_LINE_TABLE,
  WIRE_TABLE,
  wireRow,
  wireText,
  type JobLineCode,
  type JobLineRow,
  type WireCode,
  type WireMessage,
  type WireRow,
} from './error-table.js';
export { writeFileAtomic } from './fs/atomic-write.js';
export { coalescedSync, syncDirectory } from './fs/durable-sync.js';
export { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './fs/private-files.js';
export { forgetJsonText, jsonText, rememberJsonText } from './json-text.js';
export { ensurePrivateDir, ensurePrivateFile } from './fs/private-files.js';
export {
  describeRefusal,
  isInside,
  kindOf,
  readChecked,
  readCheckedSync,
  type CheckedRead,
  type CheckedReadOptions,
  type Refusal,
} from './fs/checked-read.js';
export { checkDataDir, linkRefused, openAppendNoFollowSync, prepareDataDir, readNoFollow, readNoFollowSync } from './fs/data-dir.js';
export { isProcessAlive } from './process-alive.js';
export { formatCredits, fromMilli, toMilli } from './credit-amounts.js';
export {
  charsetFromContentType,
  charsetFromMeta,
  decodeHtmlBody,
  sniffUndeclared,
  type CharsetSource,
  type DecodedBody,
  type PageCharset,
} from './charset.js';
export {
  compileSafePattern,
  MAX_PATTERN_LENGTH,
  MAX_PATTERN_PROGRAM,
  PatternProblem,
  safePatternProblem,
  type PatternUse,
  type SafePattern,
} from './safe-pattern.js';
