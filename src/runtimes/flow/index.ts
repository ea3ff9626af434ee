/** Front door of the flowchart runtime (seed 003): the service functions surfaces call. */
export * from './flowcharts.ts';
export * from './legacy.ts';
export { flowMigrations } from './migrations.ts';
export * from './types.ts';
