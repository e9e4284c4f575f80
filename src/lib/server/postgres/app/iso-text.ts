// Timestamps leave PostgreSQL as the ISO text the app writes and the SQLite file keeps
// (`2026-01-01T00:00:00.000Z`), so both engines' rows map to records the same way.

/** SQL: the timestamptz `column` as ISO 8601 text in UTC, to the millisecond. */
export const isoText = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
