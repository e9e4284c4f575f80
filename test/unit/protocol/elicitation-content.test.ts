import { describe, expect, it } from 'vitest';
import { checkContent, choicesOf, RequestedSchemaSchema, type RequestedSchema } from '../../../src/lib/protocol/elicitation';

const schema: RequestedSchema = {
	type: 'object',
	properties: {
		name: { type: 'string', minLength: 2, maxLength: 5 },
		email: { type: 'string', format: 'email' },
		site: { type: 'string', format: 'uri' },
		born: { type: 'string', format: 'date' },
		at: { type: 'string', format: 'date-time' },
		age: { type: 'integer', minimum: 0, maximum: 150 },
		score: { type: 'number', maximum: 1 },
		tea: { type: 'boolean' },
		colour: { type: 'string', enum: ['red', 'green'], enumNames: ['Red', 'Green'] },
		size: { type: 'string', oneOf: [{ const: 's', title: 'Small' }, { const: 'l', title: 'Large' }] },
		tags: { type: 'array', minItems: 1, maxItems: 2, items: { type: 'string', enum: ['a', 'b', 'c'] } }
	},
	required: ['name']
};

const refused = (content: Record<string, unknown>) => {
	const r = checkContent(schema, content);
	return r.ok ? null : { field: r.field, message: r.message };
};

describe('checkContent: a form answer against the schema the server asked with', () => {
	it('takes content that fits, every primitive type', () => {
		const content = {
			name: 'Ada',
			email: 'ada@example.org',
			site: 'https://example.org/',
			born: '1815-12-10',
			at: '2026-01-01T10:00:00+01:00',
			age: 36,
			score: 0.5,
			tea: false,
			colour: 'green',
			size: 'l',
			tags: ['a', 'c']
		};
		expect(checkContent(schema, content)).toEqual({ ok: true, content });
		expect(checkContent(schema, { name: 'Al' })).toEqual({ ok: true, content: { name: 'Al' } });
	});

	it.each([
		[{}, 'name', 'required'],
		[{ name: 'A' }, 'name', undefined],
		[{ name: 'Adalovelace' }, 'name', undefined],
		[{ name: 7 }, 'name', undefined],
		[{ name: 'Ada', email: 'not an address' }, 'email', undefined],
		[{ name: 'Ada', site: 'example' }, 'site', undefined],
		[{ name: 'Ada', born: '10/12/1815' }, 'born', undefined],
		[{ name: 'Ada', at: 'yesterday' }, 'at', undefined],
		[{ name: 'Ada', age: 36.5 }, 'age', undefined],
		[{ name: 'Ada', age: -1 }, 'age', undefined],
		[{ name: 'Ada', age: '36' }, 'age', undefined],
		[{ name: 'Ada', score: 2 }, 'score', undefined],
		[{ name: 'Ada', tea: 'yes' }, 'tea', undefined],
		[{ name: 'Ada', colour: 'Red' }, 'colour', undefined],
		[{ name: 'Ada', size: 'Small' }, 'size', undefined],
		[{ name: 'Ada', tags: [] }, 'tags', undefined],
		[{ name: 'Ada', tags: ['a', 'b', 'c'] }, 'tags', undefined],
		[{ name: 'Ada', tags: ['a', 'a'] }, 'tags', undefined],
		[{ name: 'Ada', tags: ['z'] }, 'tags', undefined],
		[{ name: 'Ada', admin: true }, 'admin', 'not asked for'],
		[{ name: 'Ada', __proto__: { x: 1 }, constructor: 'x' }, 'constructor', 'not asked for']
	])('refuses %j, naming %s', (content, field, message) => {
		const r = refused(content as Record<string, unknown>);
		expect(r?.field).toBe(field);
		if (message) expect(r?.message).toBe(message);
		else expect(r?.message).toBeTruthy();
	});

	it('an enum with no choices takes no value', () => {
		const none: RequestedSchema = { type: 'object', properties: { pick: { type: 'string', enum: [] } } };
		expect(checkContent(none, {})).toMatchObject({ ok: true });
		expect(checkContent(none, { pick: '' })).toMatchObject({ ok: false, field: 'pick' });
	});

	it('lists the choices of each enum spelling', () => {
		expect(choicesOf(schema.properties.colour!)).toEqual([{ value: 'red', label: 'Red' }, { value: 'green', label: 'Green' }]);
		expect(choicesOf(schema.properties.size!)).toEqual([{ value: 's', label: 'Small' }, { value: 'l', label: 'Large' }]);
		expect(choicesOf(schema.properties.tags!)).toEqual(['a', 'b', 'c'].map((v) => ({ value: v, label: v })));
		expect(choicesOf(schema.properties.name!)).toBeUndefined();
	});

	it('reads the schemas MCP allows and refuses nested objects', () => {
		expect(RequestedSchemaSchema.safeParse(schema).success).toBe(true);
		expect(RequestedSchemaSchema.safeParse({ type: 'object', properties: { deep: { type: 'object', properties: {} } } }).success).toBe(false);
	});
});
