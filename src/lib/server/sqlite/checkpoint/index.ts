// Checkpoint store: a LangGraph saver on the app's SQLite connection that stores message history
// once (appended suffixes) instead of once per checkpoint. See README.md.

export { DeltaSqliteSaver, type DeltaSqliteSaverOptions } from './saver.js';
export { checkpointLineage, latestCheckpointId } from './lineage.js';
export { pruneThreadCheckpoints } from './retention.js';
export { sqliteCheckpointHistory } from './history.js';
