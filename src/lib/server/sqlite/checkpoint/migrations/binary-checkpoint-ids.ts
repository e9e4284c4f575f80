// A migration of sqlite/migrations.ts: checkpoint ids as their 16 bytes.
//
// Why: every checkpoint id, a 36-character UUID (uuid6), was stored twice, in lg_checkpoints and in
// its (thread, checkpoint_id) index; as a BLOB it takes 16 bytes (checkpoint/packed-uuid.ts, which
// the store uses from now on). Packed ids sort as their text, so a thread's checkpoints keep their
// order; ids that are not canonical UUIDs stay as they are, as the store keeps them. OR IGNORE: an
// id already stored packed (the stock import, migration 6, writes with today's store) keeps that row.
//
// Frozen: this is history (the pattern is inlined, not imported, so the migration never changes).

const CANONICAL_UUID = [8, 4, 4, 4, 12].map((n) => '[0-9a-f]'.repeat(n)).join('-');

export const PACK_CHECKPOINT_IDS = `UPDATE OR IGNORE lg_checkpoints SET checkpoint_id = unhex(replace(checkpoint_id, '-', ''))
	WHERE typeof(checkpoint_id) = 'text' AND checkpoint_id GLOB '${CANONICAL_UUID}'`;
