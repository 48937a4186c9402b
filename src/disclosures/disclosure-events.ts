import type { DisclosureView } from './disclosure.view';

/** Raised once per newly stored filing, after its transaction committed. */
export const DISCLOSURE_CREATED = 'disclosure.created';

/** How a filing arrived; only the monitor's filings are news worth a push. */
export type DisclosureSource = 'monitor' | 'backfill' | 'fetch';

export interface DisclosureCreatedEvent {
  disclosure: DisclosureView;
  source: DisclosureSource;
}
