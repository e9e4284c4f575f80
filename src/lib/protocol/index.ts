/** Pure. The wire contract shared by server and browser: statuses, error codes, events, bodies. */
export * from './run-status';
export * from './error-codes';
export * from './events';
export * from './dtos';
export * from './chat-request';
export * from './model-id';
export * from './uuid';
export * from './bundle';
export * from './mcp-extras';
export * from './elicitation';
