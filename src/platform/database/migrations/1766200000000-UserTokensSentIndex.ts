import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The links mailed to an email in the last hour, used or not (UserTokensStore.sentSince): the
 * dashboard's forms that send mail count them before sending another.
 */
export class UserTokensSentIndex1766200000000 implements MigrationInterface {
  name = 'UserTokensSentIndex1766200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX user_tokens_sent_idx ON user_tokens (email, purpose, created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX user_tokens_sent_idx`);
  }
}
