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

/** Longer report names are cut: the lock screen shows two lines at most, and the payload stays small. */
const MAX_BODY_LENGTH = 120;

/**
 * The notification of a new filing: the company as the title, and as the body its
 * one-line summary, or `새 공시: {report name}` when the summary was not there in time.
 */
export function newFilingMessage(token: string, filing: FilingNotice): PushMessage {
  const body = filing.oneLiner?.trim() || `새 공시: ${filing.reportName.trim()}`;
  return {
    token,
    title: filing.corpName.trim() || '새 공시',
    body: body.length > MAX_BODY_LENGTH ? `${body.slice(0, MAX_BODY_LENGTH - 1)}…` : body,
    data: { rcept_no: filing.rceptNo, corp_code: filing.corpCode },
    collapseKey: filing.rceptNo,
  };
}
