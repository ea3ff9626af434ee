/** The store conformance suite, run against every backend selected by STORES. */
import { describeEachStore } from '../testing/each-store.ts';
import { concurrencySpecs } from './conformance/concurrency.spec.ts';
import { durabilitySpecs } from './conformance/durability.spec.ts';
import { fullTextSpecs } from './conformance/full-text.spec.ts';
import { listenSpecs } from './conformance/listen.spec.ts';
import { lockSpecs } from './conformance/locks.spec.ts';
import { migrationSpecs } from './conformance/migrations.spec.ts';
import { paramSpecs } from './conformance/params.spec.ts';
import { pipeliningSpecs } from './conformance/pipelining.spec.ts';
import { rowTriggerSpecs } from './conformance/row-trigger.spec.ts';
import { syncStatementSpecs } from './conformance/sync-statements.spec.ts';
import { syncTransactionSpecs } from './conformance/sync-transactions.spec.ts';
import { errorSpecs, transactionSpecs } from './conformance/transactions.spec.ts';

describeEachStore('store: transactions', transactionSpecs);
describeEachStore('store: concurrency', concurrencySpecs);
describeEachStore('store: migrations', migrationSpecs);
describeEachStore('store: typed errors', errorSpecs);
describeEachStore('store: listen through faults', listenSpecs);
describeEachStore('store: parameter values', paramSpecs);
describeEachStore('store: locks and catalog', lockSpecs);
describeEachStore('store: deferred durability', durabilitySpecs);
describeEachStore('store: synchronous transactions', syncTransactionSpecs);
describeEachStore('store: synchronous single statements', syncStatementSpecs);
describeEachStore('store: full-text search', fullTextSpecs);
describeEachStore('store: row triggers', rowTriggerSpecs);
describeEachStore('store: statements issued before earlier ones answer', pipeliningSpecs);
