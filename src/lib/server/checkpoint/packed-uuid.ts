// How the SQLite store keeps the ids LangGraph names with UUIDs: pending writes' task ids and
// checkpoint ids. Pure.
//
// A canonical UUID in lowercase is stored as its 16 bytes (a BLOB), which saves 20 bytes each time
// it is stored (a row and its index entry); any other id as TEXT, as it is. One id maps to one key
// either way. Packed ids sort as their text does (the hex digits in order, the dashes at fixed
// places), so a thread whose checkpoint ids are uuid6 (every id LangGraph makes) keeps its order.
// SQLite sorts every TEXT before every BLOB, so an id that is not a canonical UUID sorts before the
// packed ones of its thread, whatever its text.

/** A canonical UUID in lowercase, as LangGraph names every task (uuid5) and checkpoint (uuid6). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function packUuid(id: string): string | Buffer {
	return UUID.test(id) ? Buffer.from(id.replaceAll('-', ''), 'hex') : id;
}

export function unpackUuid(stored: string | Uint8Array): string {
	if (typeof stored === 'string') return stored;
	const hex = Buffer.from(stored).toString('hex');
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
