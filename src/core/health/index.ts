export { assessHealth, expectedData, type FieldHealth, type Health, type HealthState } from './field-health.js';
export { compareData, readSnapshots, snapshotName, updateSnapshotData, writeSnapshot, SNAPSHOT_DIR, type DataDifference, type SnapshotRecord, type StoredSnapshot } from './snapshots.js';
