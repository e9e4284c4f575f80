import { describe, expect, it } from 'vitest';
import { checkForm, contentFrom, initialValues, inputOf } from '../../../src/lib/client/elicitation-form';
import type { RequestedSchema } from '../../../src/lib/protocol';

const schema: RequestedSchema = {
	type: 'object',
	properties: {
		name: { type: 'string', default: 'Ada' },
		email: { type: 'string', format: 'email' },
		born: { type: 'string', format: 'date' },
		age: { type: 'integer', minimum: 0 },
		tea: { type: 'boolean', default: true },
		colour: { type: 'string', enum: ['red', 'green'] },
		tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } }
	},
	required: ['name', 'age']
};

describe('the page\'s form of a server\'s question', () => {
	it('shows each field as the input its type asks for, filled with its default', () => {
		expect(Object.fromEntries(Object.entries(schema.properties).map(([n, f]) => [n, inputOf(f)]))).toEqual({
			name: 'text',
			email: 'email',
			born: 'date',
			age: 'number',
			tea: 'checkbox',
			colour: 'select',
			tags: 'multi'
		});
		expect(initialValues(schema)).toEqual({ name: 'Ada', email: '', born: '', age: '', tea: true, colour: '', tags: [] });
	});

	it('reads numbers as numbers and leaves empty fields out, so a required one is named', () => {
		const values = { ...initialValues(schema), age: '36', colour: 'red', tags: ['b'] };
		expect(contentFrom(schema, values)).toEqual({ name: 'Ada', age: 36, tea: true, colour: 'red', tags: ['b'] });
		expect(checkForm(schema, values)).toMatchObject({ ok: true });
		expect(checkForm(schema, initialValues(schema))).toEqual({ ok: false, field: 'age', message: 'required' });
		expect(checkForm(schema, { ...values, age: '-3' })).toMatchObject({ ok: false, field: 'age' });
		expect(checkForm(schema, { ...values, email: 'nope' })).toMatchObject({ ok: false, field: 'email' });
	});
});
