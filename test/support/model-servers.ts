import type { Script, ScriptedModelServer } from './model-script';
import { ScriptedOllama } from './scripted-ollama';
import { ScriptedOpenAI } from './scripted-openai';

/** The scripted servers, by the provider they stand in for, so one test can run against each. */
export const MODEL_SERVERS = {
	ollama: (script: Script): Promise<ScriptedModelServer> => ScriptedOllama.start(script),
	openai: (script: Script): Promise<ScriptedModelServer> => ScriptedOpenAI.start(script)
};

export type ModelServerKind = keyof typeof MODEL_SERVERS;

export const MODEL_SERVER_KINDS = Object.keys(MODEL_SERVERS) as ModelServerKind[];
