/**
 * Pure. A tool server's form (MCP elicitation) as the page's inputs hold it: every value a string,
 * a checkbox's boolean or a multi-select's list, read back into the content the schema asks for and
 * checked with the service's own check (protocol/elicitation.ts) before anything is sent.
 */
import { checkContent, choicesOf, type ElicitationField, type RequestedSchema } from '../protocol';

export type FormValue = string | boolean | string[];
export type FormValues = Record<string, FormValue>;

/** The kind of input a field is shown as. */
export function inputOf(field: ElicitationField): 'checkbox' | 'select' | 'multi' | 'number' | 'date' | 'email' | 'url' | 'text' {
	if (field.type === 'boolean') return 'checkbox';
	if (field.type === 'array') return 'multi';
	if (field.type !== 'string') return 'number';
	if (choicesOf(field)) return 'select';
	if (field.format === 'date') return 'date';
	if (field.format === 'email') return 'email';
	if (field.format === 'uri') return 'url';
	return 'text';
}

export function initialValues(schema: RequestedSchema): FormValues {
	return Object.fromEntries(
		Object.entries(schema.properties).map(([name, field]) => {
			if (field.type === 'boolean') return [name, field.default ?? false];
			if (field.type === 'array') return [name, field.default ?? []];
			return [name, field.default === undefined ? '' : String(field.default)];
		})
	);
}

/** What is sent: an empty text or number left out (so a required one is named), numbers as numbers. */
export function contentFrom(schema: RequestedSchema, values: FormValues): Record<string, unknown> {
	const content: Record<string, unknown> = {};
	for (const [name, field] of Object.entries(schema.properties)) {
		const value = values[name];
		if (value === undefined || value === '') continue;
		content[name] = (field.type === 'number' || field.type === 'integer') && typeof value === 'string' ? Number(value) : value;
	}
	return content;
}

/** The content to accept with, or the field it fails on and why. */
export function checkForm(schema: RequestedSchema, values: FormValues) {
	return checkContent(schema, contentFrom(schema, values));
}
