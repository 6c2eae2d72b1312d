export { closest, didYouMean } from './did-you-mean.js';
export { PagejsonError, isPagejsonError, type ErrorCode } from './errors.js';
export { writeFileAtomic } from './fs/atomic-write.js';
export { coalescedSync, syncDirectory } from './fs/durable-sync.js';
export { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './fs/private-files.js';
export { forgetJsonText, jsonText, rememberJsonText } from './json-text.js';
export { ensurePrivateDir, ensurePrivateFile } from './fs/private-files.js';
export { formatCredits, fromMilli, toMilli } from './credit-amounts.js';
