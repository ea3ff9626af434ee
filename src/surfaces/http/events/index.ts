/** Front door of the event streams for runtimes' surface files. */
export type { FeedSink, ResyncInfo, RunFeedOptions, StreamEvent } from './feed.ts';
export { RunFeeds } from './feed.ts';
export { SseStreams } from './sse.ts';
