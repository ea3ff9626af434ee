// The scripted OpenAI-compatible model: script format and server.
export type { ModelScript, ScriptMatch, ScriptReply, ScriptRule } from './script.ts';
export { loadScript, parseScript } from './script.ts';
export type { RecordedRequest, ScriptedModelServer } from './server.ts';
export { startScriptedModel } from './server.ts';
