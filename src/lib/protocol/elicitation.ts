/**
 * Pure. A tool server's question to the person during a call (MCP elicitation): what the page is
 * shown, the answer it sends, and the check of a form's content against the schema the server
 * asked with, the same on both sides so the page can point at a field before the service refuses.
 */
import { z } from './zod';

const described = { title: z.string().optional(), description: z.string().optional() };
const option = z.object({ const: z.string(), title: z.string() });

/** The field types MCP allows in a form: flat, primitive (2025-06-18), with the 2025-11-25 multi-selects. */
export const ElicitationFieldSchema = z.union([
	z.object({
		type: z.literal('string'),
		...described,
		enum: z.array(z.string()).optional(),
		enumNames: z.array(z.string()).optional(),
		oneOf: z.array(option).optional(),
		minLength: z.number().optional(),
		maxLength: z.number().optional(),
		format: z.enum(['email', 'uri', 'date', 'date-time']).optional(),
		default: z.string().optional()
	}),
	z.object({
		type: z.enum(['number', 'integer']),
		...described,
		minimum: z.number().optional(),
		maximum: z.number().optional(),
		default: z.number().optional()
	}),
	z.object({ type: z.literal('boolean'), ...described, default: z.boolean().optional() }),
	z.object({
		type: z.literal('array'),
		...described,
		minItems: z.number().optional(),
		maxItems: z.number().optional(),
		items: z.union([z.object({ type: z.literal('string'), enum: z.array(z.string()) }), z.object({ anyOf: z.array(option) })]),
		default: z.array(z.string()).optional()
	})
]);
export type ElicitationField = z.infer<typeof ElicitationFieldSchema>;

export const RequestedSchemaSchema = z.object({
	type: z.literal('object'),
	properties: z.record(z.string(), ElicitationFieldSchema),
	required: z.array(z.string()).optional()
});
export type RequestedSchema = z.infer<typeof RequestedSchemaSchema>;

/** A question waiting for the person: a form (`requestedSchema`), or a URL to open only once they confirm. */
export const PendingElicitationSchema = z.object({
	id: z.string(),
	/** The run whose call asks: an answer goes to POST /api/runs/<run>/elicitations/<id>. */
	run: z.string(),
	server: z.string(),
	/** The `server__tool` whose call asks. */
	tool: z.string(),
	message: z.string(),
	mode: z.enum(['form', 'url']),
	requestedSchema: RequestedSchemaSchema.optional(),
	url: z.string().optional(),
	/** Unanswered by then, it is answered `cancel` (ELICITATION_TIMEOUT_MS). */
	expiresAt: z.string()
});
export type PendingElicitation = z.infer<typeof PendingElicitationSchema>;

export const ElicitationActionSchema = z.enum(['accept', 'decline', 'cancel']);
export type ElicitationAction = z.infer<typeof ElicitationActionSchema>;

/** The body of POST /api/runs/<run>/elicitations/<id>; `content` is checked against the question's schema. */
export const ElicitationAnswerSchema = z.discriminatedUnion('action', [
	z.object({ action: z.literal('accept'), content: z.record(z.string(), z.unknown()).optional() }).strict(),
	z.object({ action: z.literal('decline') }).strict(),
	z.object({ action: z.literal('cancel') }).strict()
]);
export type ElicitationAnswer = z.infer<typeof ElicitationAnswerSchema>;

/**
 * What an answer came to where its question is held: taken (its action), or refused, changing
 * nothing. Carried back as is to the instance that took the answer when another one runs the call.
 */
export const ElicitationAnswerOutcomeSchema = z.union([
	z.object({ action: ElicitationActionSchema }),
	z.object({ refused: z.enum(['not-found', 'closed', 'other-run']) }),
	z.object({ refused: z.literal('invalid'), field: z.string(), message: z.string() })
]);
export type ElicitationAnswerOutcome = z.infer<typeof ElicitationAnswerOutcomeSchema>;

export type ElicitationContent = Record<string, string | number | boolean | string[]>;

/** The choices of an enum field, single or multiple, whichever way the server spelled them. */
export function choicesOf(field: ElicitationField): { value: string; label: string }[] | undefined {
	if (field.type === 'array') {
		const items = field.items;
		return 'anyOf' in items ? items.anyOf.map((o) => ({ value: o.const, label: o.title })) : items.enum.map((v) => ({ value: v, label: v }));
	}
	if (field.type !== 'string') return undefined;
	if (field.oneOf) return field.oneOf.map((o) => ({ value: o.const, label: o.title }));
	return field.enum?.map((v, i) => ({ value: v, label: field.enumNames?.[i] ?? v }));
}

const oneOf = (values: string[]) => (values.length ? z.enum(values as [string, ...string[]]) : z.never());

function valueSchema(field: ElicitationField): z.ZodType {
	const choices = choicesOf(field)?.map((c) => c.value);
	switch (field.type) {
		case 'boolean':
			return z.boolean();
		case 'number':
		case 'integer': {
			let n = field.type === 'integer' ? z.number().int() : z.number();
			if (field.minimum !== undefined) n = n.min(field.minimum);
			if (field.maximum !== undefined) n = n.max(field.maximum);
			return n;
		}
		case 'array': {
			let a = z.array(oneOf(choices ?? []));
			if (field.minItems !== undefined) a = a.min(field.minItems);
			if (field.maxItems !== undefined) a = a.max(field.maxItems);
			return a.refine((v) => new Set(v).size === v.length, 'each choice once');
		}
		case 'string': {
			if (choices) return oneOf(choices);
			const format = { email: z.email(), uri: z.url(), date: z.iso.date(), 'date-time': z.iso.datetime({ offset: true }) };
			let s = field.format ? format[field.format] : z.string();
			if (field.minLength !== undefined) s = s.min(field.minLength);
			if (field.maxLength !== undefined) s = s.max(field.maxLength);
			return s;
		}
	}
}

/**
 * The content as the schema allows it, or the first field it fails on and why. Fields the schema
 * does not name are refused: what is sent is exactly what the server asked for.
 */
export function checkContent(
	schema: RequestedSchema,
	content: Record<string, unknown>
): { ok: true; content: ElicitationContent } | { ok: false; field: string; message: string } {
	const required = new Set(schema.required ?? []);
	const shape = Object.fromEntries(
		Object.entries(schema.properties).map(([name, field]) => [name, required.has(name) ? valueSchema(field) : valueSchema(field).optional()])
	);
	const parsed = z.strictObject(shape).safeParse(content);
	if (parsed.success) return { ok: true, content: parsed.data as ElicitationContent };
	const issue = parsed.error.issues[0]!;
	const field = issue.code === 'unrecognized_keys' ? issue.keys[0]! : String(issue.path[0] ?? '');
	const message = issue.code === 'unrecognized_keys' ? 'not asked for' : content[field] === undefined ? 'required' : issue.message;
	return { ok: false, field, message };
}
