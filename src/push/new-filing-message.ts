import type { PushMessage } from './push-sender';

/** What a notification says about a filing. */
export interface FilingNotice {
  rceptNo: string;
  corpCode: string;
  corpName: string;
  reportName: string;
  /** The filing's one-line summary when its analysis completed in time; null otherwise. */
  oneLiner: string | null;
}

/** The words of a notification. */
export interface NotificationText {
  title: string;
  body: string;
}

/** Longer report names are cut: the lock screen shows two lines at most, and the payload stays small. */
const MAX_BODY_LENGTH = 120;
/** Companies a digest names before it counts the rest. */
const DIGEST_NAMED_COMPANIES = 3;

/**
 * The notification of a new filing: the company as the title, and as the body its
 * one-line summary, or `새 공시: {report name}` when the summary was not there in time.
 * `text` fixed earlier (a digest, a retry) is sent as it is. A tap opens the filing. The
 * collapse key is the filing (a digest's is its newest filing, whose delivery carries it): one
 * row per device, so a copy sent again after a lost lease replaces the first on the device.
 */
export function newFilingMessage(token: string, filing: FilingNotice, text: NotificationText | null = null): PushMessage {
  const body = filing.oneLiner?.trim() || `새 공시: ${filing.reportName.trim()}`;
  return {
    token,
    title: text?.title ?? (filing.corpName.trim() || '새 공시'),
    body: text?.body ?? cut(body),
    data: { rcept_no: filing.rceptNo, corp_code: filing.corpCode },
    collapseKey: filing.rceptNo,
  };
}

/**
 * The digest of the filings held during quiet hours, newest first: the title counts
 * them, the body names their companies (newest first, each once, then how many more).
 */
export function digestText(filings: ReadonlyArray<{ corpName: string }>): NotificationText {
  const companies = [...new Set(filings.map((filing) => filing.corpName.trim()))];
  const named = companies.slice(0, DIGEST_NAMED_COMPANIES).join(', ');
  const more = companies.length - DIGEST_NAMED_COMPANIES;
  return {
    title: `관심 기업 새 공시 ${filings.length}건`,
    body: cut(more > 0 ? `${named} 외 ${more}곳` : named),
  };
}

function cut(text: string): string {
  return text.length > MAX_BODY_LENGTH ? `${text.slice(0, MAX_BODY_LENGTH - 1)}…` : text;
}
