import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `import_results` loses its foreign key to `imports`. Its check ran once per result row (500 a
 * chunk, all for the same import): about a third of a chunk's cost when every line is unchanged.
 * A result row is only ever inserted by the statement that updates its import under the claim
 * (ImportsStore.saveChunk), so it cannot name a missing import; the purge deletes the results
 * with their import (ImportsStore.deleteImports), as the cascade did.
 */
export class ImportResultsWithoutForeignKey1764600000000 implements MigrationInterface {
  name = 'ImportResultsWithoutForeignKey1764600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE import_results DROP CONSTRAINT import_results_import_id_fkey`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM import_results r
      WHERE NOT EXISTS (SELECT 1 FROM imports i WHERE i.id = r.import_id)`);
    await q.query(`ALTER TABLE import_results ADD CONSTRAINT import_results_import_id_fkey
      FOREIGN KEY (import_id) REFERENCES imports(id) ON DELETE CASCADE`);
  }
}
