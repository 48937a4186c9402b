import { DiscoveryService } from '@nestjs/core';
import type { EntityManager } from 'typeorm';

/** What one ingest stored: the rcept_no of every new filing, and those of them that are news (announced by push). */
export interface StoredFilings {
  stored: string[];
  news: string[];
}

/**
 * Work of a feature above disclosures that commits or rolls back with the new filings
 * themselves: it writes its own rows in the ingest's transaction (`manager`), so a crash
 * loses none of them (the PENDING analyses, the push outbox). disclosures imports none of
 * those features: each marks its provider `@NewFilingsStep()` and implements this, and
 * `DisclosureIngestService` runs every step it finds, one after another, in no promised
 * order (each step writes only its own table).
 */
export interface NewFilingsStepHandler {
  onFilingsStored(manager: EntityManager, filings: StoredFilings): Promise<void>;
}

/** Marks a provider as a step of the ingest transaction (`NewFilingsStepHandler`). */
export const NewFilingsStep = DiscoveryService.createDecorator<void>();
