/** Pure. The run statuses the API and the stream speak of, shared by server and browser. */
import { z } from './zod';

/**
 * `running` until the run's one outcome is written (runs/run-executor.ts); the others are final.
 * `interrupted` means the run stopped before its thread finished (a crash or a shutdown) and can
 * be resumed; `waiting` that it paused for a person to decide on its tool calls, which a run of
 * trigger `approval` carries out.
 */
export const RunStatusSchema = z.enum(['running', 'interrupted', 'completed', 'failed', 'cancelled', 'waiting']);
export type RunStatus = z.infer<typeof RunStatusSchema>;

/** `edit` and `regenerate` start a new branch of the thread from an earlier checkpoint. */
export const RunTriggerSchema = z.enum(['message', 'resume', 'auto-resume', 'approval', 'edit', 'regenerate']);
export type RunTrigger = z.infer<typeof RunTriggerSchema>;
