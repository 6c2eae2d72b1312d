export { endpointPrice, retrievalCost, type EndpointPrice } from './credits.js';
export { createFailureRate } from './failure-rate.js';
export { verifyApiKey, verifyKeyId, type KeyVerdict } from './key-service.js';
export { createUsageBuffer } from './usage-buffer.js';
