import { Foundation1763780000000 } from './1763780000000-Foundation';

/** Listed explicitly so ts-node, Jest and the compiled build all load the same set. */
export const MIGRATIONS = [Foundation1763780000000];
