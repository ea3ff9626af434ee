/**
 * A commit that really fails, for tests: after `install`, every transaction that inserts into
 * `table` fails at COMMIT (a trigger adds a row whose deferred foreign key dangles), on either store.
 * The DDL differs per backend because triggers do; the failure is the database's own.
 */
import type { Store } from '../store/store.ts';
import type { StoreKind } from './stores.ts';

export async function failCommitsInserting(store: Store, kind: StoreKind, table: string): Promise<void> {
  await store.run('CREATE TABLE fault_parent (id BIGINT PRIMARY KEY)');
  await store.run(
    'CREATE TABLE fault_child (pid BIGINT REFERENCES fault_parent (id) DEFERRABLE INITIALLY DEFERRED)',
  );
  if (kind === 'sqlite') {
    await store.run(
      `CREATE TRIGGER fault_commit AFTER INSERT ON ${table} BEGIN INSERT INTO fault_child (pid) VALUES (-1); END`,
    );
  } else {
    await store.run(`CREATE FUNCTION fault_commit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO fault_child (pid) VALUES (-1); RETURN NEW; END $$`);
    await store.run(
      `CREATE TRIGGER fault_commit AFTER INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION fault_commit()`,
    );
  }
}
