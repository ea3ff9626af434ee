/** The `application_name` of the store's LISTEN connection: shown in pg_stat_activity, so operators (and tests) can tell the listening backend apart. */
export const LISTENER_APPLICATION_NAME = 'noema-listen';
