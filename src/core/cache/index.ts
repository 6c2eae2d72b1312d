export { Paged, Uncacheable, cacheKey, type CacheAnswer, type CacheState, type ResponseCache } from './response-cache.js';
export { createResponseCache } from './response-cache.js';
export { createRedisCache } from './redis-cache.js';
