import type Database from 'better-sqlite3';
import type { AllowedTool } from '../../protocol';

/** "Always allow this tool": a tool that would ask runs at once, until the person revokes it. */
export class AllowedTools {
	private readonly all;
	private readonly one;
	private readonly insert;
	private readonly remove;

	constructor(db: Database.Database) {
		this.all = db.prepare<[], { tool: string; since: string }>('SELECT tool, since FROM allowed_tools ORDER BY tool');
		this.one = db.prepare<[string], { tool: string }>('SELECT tool FROM allowed_tools WHERE tool = ?');
		this.insert = db.prepare('INSERT OR IGNORE INTO allowed_tools (tool, since) VALUES (?, ?)');
		this.remove = db.prepare('DELETE FROM allowed_tools WHERE tool = ?');
	}

	list(): AllowedTool[] {
		return this.all.all();
	}

	has(tool: string): boolean {
		return this.one.get(tool) !== undefined;
	}

	allow(tool: string, now: string): void {
		this.insert.run(tool, now);
	}

	/** Whether the tool was allowed. */
	revoke(tool: string): boolean {
		return this.remove.run(tool).changes > 0;
	}
}
