export {
  createRetrievalService,
  MAX_BODY_BYTES,
  type RefreshOutcome,
  type RequestBody,
  type RetrievalAnswer,
  type RetrievalEvent,
  type RetrievalRequest,
  type RetrievalService,
} from './retrieval-service.js';
export { RETRIEVAL_STAGES } from './stages.js';
export { retrieve } from './retrieve.js';
export { keptLogins, loggedInProbe } from './login-probe.js';
