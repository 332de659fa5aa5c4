/** The imports' statuses and line outcomes, for other features' forms and filters (the store stays home). */
export { IMPORT_OUTCOMES, IMPORT_STATUSES, UNFINISHED } from '../imports.store';
