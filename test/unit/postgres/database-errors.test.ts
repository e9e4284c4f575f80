import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { DatabaseUnavailableError } from '../../../src/lib/server/postgres/engine';
import { isDatabaseUnavailable } from '../../../src/lib/server/storage/database-errors';
import { RunFencedError } from '../../../src/lib/server/postgres/app/run-fence';

const errno = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code, errno: -1, syscall: 'connect' });

/** An error as the server sends it: pg's DatabaseError with its SQLSTATE. */
function serverError(code: string, message = 'from the server'): pg.DatabaseError {
	const e = new pg.DatabaseError(message, message.length, 'error');
	e.code = code;
	return e;
}

describe('isDatabaseUnavailable', () => {
	it.each([
		['nothing listens on the port', errno('ECONNREFUSED'), true],
		['the connection was reset under a query', errno('ECONNRESET'), true],
		['a write to a closed socket', errno('EPIPE'), true],
		['the host is unreachable', errno('EHOSTUNREACH'), true],
		['the network is unreachable', errno('ENETUNREACH'), true],
		['a connect that timed out at the socket', errno('ETIMEDOUT'), true],
		['the host name does not resolve now', errno('EAI_AGAIN'), true],
		['every address of a host refused', new AggregateError([errno('ECONNREFUSED'), errno('ECONNREFUSED')], ''), true],
		['a fast shutdown ending the session (57P01)', serverError('57P01', 'terminating connection due to administrator command'), true],
		['a server that crashed (57P02)', serverError('57P02'), true],
		['a server starting up or shutting down (57P03)', serverError('57P03', 'the database system is starting up'), true],
		['no connection slot free (53300)', serverError('53300', 'sorry, too many clients already'), true],
		['a connection exception (08006)', serverError('08006'), true],
		['unable to establish a connection (08001)', serverError('08001'), true],
		['pg-pool wrapping a connect timeout around its cause', new Error('Connection terminated due to connection timeout', { cause: errno('ETIMEDOUT') }), true],
		['our start-up error around a refused connect', new DatabaseUnavailableError('Cannot open PostgreSQL at …', { cause: errno('ECONNREFUSED') }), true],
		['refused credentials (28P01)', serverError('28P01', 'password authentication failed for user "x"'), false],
		['a role that does not exist (28000)', serverError('28000', 'role "nobody" does not exist'), false],
		['a database that does not exist (3D000)', serverError('3D000', 'database "nope" does not exist'), false],
		['our start-up error around refused credentials', new DatabaseUnavailableError('Cannot open PostgreSQL at …', { cause: serverError('28P01') }), false],
		['a constraint the query broke (23505)', serverError('23505', 'duplicate key value violates unique constraint'), false],
		['a query cancelled on request (57014, not class 08)', serverError('57014', 'canceling statement due to user request'), false],
		['a write fenced off its run', new RunFencedError('r1'), false],
		['an error whose text only sounds like it', new Error('connect ECONNREFUSED: terminating connection due to administrator command'), false],
		['an error code that merely starts like class 08', Object.assign(new Error('x'), { code: '08' }), false],
		['something that is not an error', 'ECONNREFUSED', false],
		['nothing', undefined, false]
	])('%s', (_name, error, unavailable) => {
		expect(isDatabaseUnavailable(error)).toBe(unavailable);
	});

	it('ends on an error that is its own cause', () => {
		const e: Error & { cause?: unknown } = new Error('loop');
		e.cause = e;
		expect(isDatabaseUnavailable(e)).toBe(false);
	});
});
