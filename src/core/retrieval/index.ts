export { createRetrievalService, type RetrievalEvent, type RetrievalService } from './retrieval-service.js';
export { retrieve } from './retrieve.js';
