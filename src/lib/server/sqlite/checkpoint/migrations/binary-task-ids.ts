// A migration of sqlite/migrations.ts: pending writes name their task by its 16 bytes.
//
// Why: every pending write carries its task's id, a 36-character UUID, in the table and in its
// primary key; as a BLOB it takes 16 bytes (checkpoint/task-path.ts packTaskId, which the store
// uses from now on). The ids written before are packed the same way here, so a write retried after
// the upgrade has the key of the one stored before it, and replaces or keeps it as it always did.
//
// Frozen: this is history (the pattern is inlined, not imported, so the migration never changes).

const CANONICAL_UUID = [8, 4, 4, 4, 12].map((n) => '[0-9a-f]'.repeat(n)).join('-');

export const PACK_TASK_IDS = `UPDATE lg_writes SET task_id = unhex(replace(task_id, '-', ''))
	WHERE typeof(task_id) = 'text' AND task_id GLOB '${CANONICAL_UUID}'`;
