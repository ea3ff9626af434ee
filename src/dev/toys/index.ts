// Toy park services (weather, PA, phone, vending machine, drinking fountain) and their source definitions.
export { toyResultSchemas, toySources } from './definitions.ts';
export type { ToyReply } from './park.ts';
export type { ToyServices } from './server.ts';
export { startToyServices, TOY_URL_ENV } from './server.ts';
