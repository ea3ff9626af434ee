/** The world tools run turns on the store's shared world runtime. */
export { sharedWorldRuntime as worldRuntimeFor } from '../../../../runtimes/world/index.ts';
