export { type MonitorStore } from './store.js';
export { createWatch, type Watch, type WatchEvent } from './watch.js';
