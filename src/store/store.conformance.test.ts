/** The store conformance suite, run against every backend selected by STORES. */
import { describeEachStore } from '../testing/each-store.ts';
import { concurrencySpecs } from './conformance/concurrency.spec.ts';
import { durabilitySpecs } from './conformance/durability.spec.ts';
import { migrationSpecs } from './conformance/migrations.spec.ts';
import { errorSpecs, transactionSpecs } from './conformance/transactions.spec.ts';

describeEachStore('store: transactions', transactionSpecs);
describeEachStore('store: concurrency', concurrencySpecs);
describeEachStore('store: migrations', migrationSpecs);
describeEachStore('store: typed errors', errorSpecs);
describeEachStore('store: deferred durability', durabilitySpecs);
