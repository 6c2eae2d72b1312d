export { DurableJsonAdapter } from './lowdb-adapter.js';
export { closeRedis, commandSender, connectRedis, type RedisClient } from './redis-connection.js';
export { RELEASE_LOCK, runScript, type RedisScript } from './redis-scripts.js';
export { HOUR_MS, dayOf, hourOf } from './state-rules.js';
export {
  type ApiKeyRecord,
  type EndpointObservation,
  type EndpointRuntimeStatus,
  type FieldBaseline,
  type HealthBaseline,
  type ValueKind,
  type StateStore,
  type UsageEvent,
  type UsageQuery,
  type UsageRow,
} from './types.js';
export { parseObservations, withObservation } from './observation.js';
export { createLowdbStore } from './lowdb-store.js';
export { resolveRedisUrl } from './redis-connection.js';
export { createRedisStore } from './redis-store.js';
