export { assessHealth, expectedData, type FieldHealth, type Health, type HealthState } from './field-health.js';
export {
  compareData,
  readSnapshots,
  snapshotName,
  updateSnapshotData,
  writeSnapshot,
  SNAPSHOT_DIR,
  type DataDifference,
  type SnapshotPage,
  type SnapshotRecord,
  type StoredSnapshot,
} from './snapshots.js';
export { healStructure, recoveryOf, type HealResult } from './heal.js';
export { proposeRepair, repairRule, type RepairProposal } from './repair.js';
export { proposalFile, readProposal, removeProposal, writeProposal, PROPOSAL_SUFFIX } from './proposals.js';
export { createBackgroundRepair, type BackgroundRepair, type HealMode, type RepairEvent } from './background-repair.js';
