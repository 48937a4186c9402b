import type { DataSource } from 'typeorm';
import { DisclosuresRepository } from '../../src/disclosures/disclosures.repository';
import type { DartFiling } from '../../src/upstream/dart/dart.types';
import { createUser } from '../support/fixtures';
import { useOwnerDatabase } from '../support/owner-database';

/** A filing as the disclosure system lists it; `serial` makes its receipt number (filed on `day`). */
function filing(day: string, serial: number, corpCode: string, fields: Partial<DartFiling> = {}): DartFiling {
  return {
    rcept_no: `${day}${String(serial).padStart(6, '0')}`,
    corp_code: corpCode,
    corp_name: `company ${corpCode}`,
    stock_code: corpCode.slice(2),
    corp_cls: 'Y',
    report_nm: '주요사항보고서(유상증자결정)',
    flr_nm: 'filer',
    rcept_dt: day,
    rm: '',
    ...fields,
  };
}

/** Stores `filings` as the ingest does: one call, in a transaction of its own. */
const ingest = (dataSource: DataSource, store: DisclosuresRepository, filings: DartFiling[]) =>
  dataSource.transaction((manager) => store.insertNew(manager, filings));

/**
 * DisclosuresRepository, owner of table disclosures: what the ingest relies on when several
 * instances store overlapping pages, and the watched feed's cursor over rows the ingest
 * wrote (one batch shares its transaction's creation time, to the microsecond).
 */
describe('DisclosuresRepository', () => {
  const db = useOwnerDatabase();
  let store: DisclosuresRepository;

  beforeAll(() => {
    store = new DisclosuresRepository(db.dataSource);
  });

  describe('insertNew', () => {
    it('answers each filing to exactly one of several instances storing overlapping pages at once', async () => {
      const otherPool = await db.openPool();
      const instances = [
        { pool: db.dataSource, store },
        { pool: otherPool, store: new DisclosuresRepository(otherPool) },
      ];
      const day = '20261102';
      const all = Array.from({ length: 60 }, (_, i) => filing(day, 60 - i, '10000001'));
      // Pages in the disclosure system's order, each overlapping the next by half, and one with all of them.
      const pages = [all.slice(0, 30), all.slice(15, 45), all.slice(30, 60), all];
      const answers = await Promise.all(pages.map((page, i) => ingest(instances[i % 2].pool, instances[i % 2].store, page)));

      const answered = answers.flat();
      expect(answered.sort()).toEqual(all.map((f) => f.rcept_no).sort());
      const [{ n }] = await db.dataSource.query<{ n: number }[]>('SELECT count(*)::int AS n FROM disclosures WHERE rcept_dt = $1', [day]);
      expect(n).toBe(60);
    });

    it('never touches a stored filing, and answers only the new ones', async () => {
      const first = filing('20261103', 1, '10000002', { report_nm: 'the first word' });
      expect(await ingest(db.dataSource, store, [first])).toEqual([first.rcept_no]);

      const again = { ...first, report_nm: 'a later word', corp_name: 'renamed' };
      const second = filing('20261103', 2, '10000002');
      expect(await ingest(db.dataSource, store, [again, second, second])).toEqual([second.rcept_no]);
      const [row] = await db.dataSource.query<{ report_name: string; corp_name: string }[]>(
        'SELECT report_name, corp_name FROM disclosures WHERE rcept_no = $1',
        [first.rcept_no],
      );
      expect(row).toEqual({ report_name: 'the first word', corp_name: 'company 10000002' });
    });

    it('stores what the columns hold: values trimmed and cut to their width, an empty class as none', async () => {
      const long = filing('20261104', 1, '10000003', {
        corp_name: `  ${'이'.repeat(300)}  `,
        report_nm: `${'보'.repeat(600)}`,
        flr_nm: ` ${'f'.repeat(300)}`,
        rm: ` ${'유'.repeat(60)} `,
        stock_code: ' 123456 ',
        corp_cls: '' as DartFiling['corp_cls'],
      });
      await ingest(db.dataSource, store, [long]);
      const [row] = await db.dataSource.query<Record<string, string | null>[]>(
        `SELECT corp_name, report_name, submitter, remarks, stock_code, corp_cls FROM disclosures WHERE rcept_no = $1`,
        [long.rcept_no],
      );
      expect(row).toEqual({
        corp_name: '이'.repeat(255),
        report_name: '보'.repeat(500),
        submitter: 'f'.repeat(255),
        remarks: '유'.repeat(50),
        stock_code: '123456',
        corp_cls: null,
      });
    });
  });

  describe('watchedFeed', () => {
    const WATCHED = ['20000001', '20000002', '20000003'];
    const UNWATCHED = '20000009';
    let userId: number;
    /** The watched filings in the feed's order: filing date, creation time, receipt number, each newest first. */
    let expected: string[];

    beforeAll(async () => {
      userId = await createUser(db.dataSource);
      await db.dataSource.query(
        'INSERT INTO watch_stocks (user_id, corp_code, corp_name) SELECT $1, c, c FROM unnest($2::text[]) AS x(c)',
        [userId, WATCHED],
      );
      // Three ingests, each storing its page in one transaction, as the monitor does: every row of
      // a page has the same creation time. The first and the last are filed the same day.
      let serial = 0;
      const page = (day: string, count: number) =>
        Array.from({ length: count }, (_, i) => filing(day, ++serial, i % 4 === 3 ? UNWATCHED : WATCHED[i % WATCHED.length]));
      const pages = [page('20261110', 20), page('20261111', 14), page('20261110', 12)];
      for (const p of pages) await ingest(db.dataSource, store, p);
      const rows = await db.dataSource.query<{ rcept_no: string }[]>(
        `SELECT rcept_no FROM disclosures WHERE corp_code = ANY($1::text[]) AND rcept_dt IN ('20261110', '20261111')
         ORDER BY rcept_dt DESC, created_at DESC, rcept_no DESC`,
        [WATCHED],
      );
      expected = rows.map((row) => row.rcept_no);
    });

    /** Every page of the feed from the start, `limit` at a time, following the cursor. */
    async function allPages(limit: number): Promise<string[][]> {
      const pages: string[][] = [];
      let before: string | undefined;
      for (;;) {
        const page = await store.watchedFeed(userId, limit, before);
        if (page === null) throw new Error(`the cursor ${before} named no filing`);
        if (page.length === 0) return pages;
        pages.push(page.map((item) => item.rcept_no));
        before = page.at(-1)!.rcept_no;
      }
    }

    it('lists the watched filings newest first, each once', async () => {
      expect(expected).toHaveLength(35);
      expect((await store.watchedFeed(userId, 100))!.map((item) => item.rcept_no)).toEqual(expected);
    });

    it.each([1, 7, 20])('pages through every filing exactly once, in order, %i at a time, across rows stored together', async (limit) => {
      const pages = await allPages(limit);
      expect(pages.flat()).toEqual(expected);
      expect(pages.every((page) => page.length <= limit)).toBe(true);
    });

    it('continues after a cursor that names a filing of a company the user does not watch', async () => {
      const [cursor] = await db.dataSource.query<{ rcept_no: string }[]>(
        `SELECT rcept_no FROM disclosures WHERE corp_code = $1 AND rcept_dt = '20261110' ORDER BY created_at DESC, rcept_no DESC LIMIT 1 OFFSET 1`,
        [UNWATCHED],
      );
      // The watched filings after it in the feed's order, as PostgreSQL compares the rows.
      const after = await db.dataSource.query<{ rcept_no: string }[]>(
        `SELECT d.rcept_no FROM disclosures d, disclosures c
         WHERE c.rcept_no = $2 AND d.corp_code = ANY($1::text[]) AND (d.rcept_dt, d.created_at, d.rcept_no) < (c.rcept_dt, c.created_at, c.rcept_no)
         ORDER BY d.rcept_dt DESC, d.created_at DESC, d.rcept_no DESC LIMIT 5`,
        [WATCHED, cursor.rcept_no],
      );
      expect(after).toHaveLength(5);
      expect((await store.watchedFeed(userId, 5, cursor.rcept_no))!.map((item) => item.rcept_no)).toEqual(after.map((row) => row.rcept_no));
    });

    it('answers null for a cursor that names no filing', async () => {
      expect(await store.watchedFeed(userId, 5, '20991231000001')).toBeNull();
    });
  });
});
