export {
  baselineFor,
  expectedData,
  judgeConfig,
  judgeHealth,
  type FieldHealth,
  type FieldProblem,
  type Health,
  type HealthState,
} from './field-health.js';
export { carryBaseline, learnBaseline, readFields, seedBaseline } from './baseline.js';
export { valueKind } from './value-kind.js';
export { headerStructure, headersFrom, type HeaderStructure } from './table-headers.js';
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
export { modelFieldPaths, withoutModelFields, withoutModelValues } from './model-fields.js';
export { judgeRepair, repairVerdict, type RepairVerdict } from './repair-verdict.js';
