// The provider fixture: an OpenAI-compatible server that answers as one provider does.

export { isProviderName, PROVIDERS } from '../../sources/index.ts';
export type { RecordedError, Recording } from './recordings.ts';
export { recordingOf } from './recordings.ts';
export { strictProblem } from './rules.ts';
export type { FixtureRequest, ProviderFixture, ProviderFixtureOptions, Scenario } from './server.ts';
export { SCENARIOS, startProviderFixture } from './server.ts';
