import { MigrationInterface, QueryRunner } from 'typeorm';
import { collateOnMysql } from './collate-on-mysql';

/**
 * A single sign-on subject is matched exactly, case included: an OpenID Connect `sub` is a
 * case-sensitive string (OIDC Core 2), and the LDAP subject is written lower-cased. On MySQL
 * `users.sso_subject` took the table's utf8mb4_unicode_ci, which folds case, accents and trailing
 * spaces: a provider's user `Alice` signed in as the Baton account of its user `alice` (its
 * tenant, role, sessions and keys). It becomes utf8mb4_bin, as the keys did
 * (1798500000000-case-sensitive-keys). Its unique index (uq_users_sso, with sso_provider) is
 * rebuilt; no stored subject can clash, they were unique under a coarser collation. SQLite:
 * nothing to do (its TEXT compares bytes). The entity keeps no collation of its own.
 */
export class CaseSensitiveSsoSubjects1799370000000 implements MigrationInterface {
  name = 'CaseSensitiveSsoSubjects1799370000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await collate(queryRunner, 'utf8mb4_bin');
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await collate(queryRunner, 'utf8mb4_unicode_ci');
  }
}

function collate(queryRunner: QueryRunner, collation: string): Promise<void> {
  return collateOnMysql(queryRunner, collation, (as) => [`ALTER TABLE users MODIFY sso_subject VARCHAR(255) ${as} NULL`]);
}
