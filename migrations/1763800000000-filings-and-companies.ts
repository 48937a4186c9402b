import type { MigrationInterface, QueryRunner } from 'typeorm';
import { refuseDown } from './forward-only';

export class FilingsAndCompanies1763800000000 implements MigrationInterface {
  name = 'FilingsAndCompanies1763800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Every entry of the disclosure system's corpCode.xml, listed or not. `checked_at`
    // marks the companies whose market the stock sync already looked up.
    await queryRunner.query(`
      CREATE TABLE corp_codes (
        corp_code char(8) PRIMARY KEY,
        corp_name varchar(255) NOT NULL,
        corp_eng_name varchar(255) NOT NULL DEFAULT '',
        stock_code varchar(6) NULL,
        modify_date char(8) NOT NULL DEFAULT '',
        corp_cls char(1) NULL,
        checked_at timestamptz NULL,
        first_seen_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);

    // The stock master: listed companies of the main (Y) and second (K) boards only.
    await queryRunner.query(`
      CREATE TABLE stocks (
        corp_code char(8) PRIMARY KEY,
        corp_name varchar(255) NOT NULL,
        stock_code varchar(6) NOT NULL,
        market_type char(1) NOT NULL CONSTRAINT ck_stocks_market_type CHECK (market_type IN ('Y', 'K')),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query('CREATE INDEX ix_stocks_stock_code ON stocks (stock_code)');
    await queryRunner.query('CREATE INDEX ix_stocks_corp_name ON stocks (corp_name)');

    await queryRunner.query(`
      CREATE TABLE disclosures (
        rcept_no char(14) PRIMARY KEY CONSTRAINT ck_disclosures_rcept_no CHECK (rcept_no ~ '^[0-9]{14}$'),
        corp_code char(8) NOT NULL,
        corp_name varchar(255) NOT NULL,
        stock_code varchar(6) NOT NULL DEFAULT '',
        corp_cls char(1) NULL,
        report_name varchar(500) NOT NULL,
        rcept_dt char(8) NOT NULL CONSTRAINT ck_disclosures_rcept_dt CHECK (rcept_dt ~ '^[0-9]{8}$'),
        submitter varchar(255) NOT NULL DEFAULT '',
        remarks varchar(50) NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    // Every read orders by (rcept_dt, created_at, rcept_no) descending: the feed and
    // date ranges walk the first index, a company's filings the second.
    await queryRunner.query('CREATE INDEX ix_disclosures_feed ON disclosures (rcept_dt DESC, created_at DESC, rcept_no DESC)');
    await queryRunner.query(
      'CREATE INDEX ix_disclosures_corp_feed ON disclosures (corp_code, rcept_dt DESC, created_at DESC, rcept_no DESC)',
    );

    // One analysis per filing; also the analysis scheduler's work queue.
    await queryRunner.query(`
      CREATE TABLE analyses (
        rcept_no char(14) PRIMARY KEY REFERENCES disclosures (rcept_no) ON DELETE CASCADE,
        status varchar(12) NOT NULL DEFAULT 'PENDING'
          CONSTRAINT ck_analyses_status CHECK (status IN ('PENDING', 'PROCESSING', 'COMPLETED', 'UNAVAILABLE')),
        one_liner varchar(100) NULL,
        result jsonb NULL,
        doc_length integer NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        completed_at timestamptz NULL
      )`);
    await queryRunner.query("CREATE INDEX ix_analyses_pending ON analyses (created_at) WHERE status = 'PENDING'");

    // company.json answers, stored on first read and refreshed when stale.
    await queryRunner.query(`
      CREATE TABLE companies (
        corp_code char(8) PRIMARY KEY,
        data jsonb NOT NULL,
        fetched_at timestamptz NOT NULL
      )`);
  }

  async down(): Promise<void> {
    refuseDown(this.name);
  }
}
