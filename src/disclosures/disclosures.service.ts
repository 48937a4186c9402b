import { Injectable } from '@nestjs/common';
import { DisclosuresRepository, type DisclosureFilter } from './disclosures.repository';
import type { DisclosureView } from './disclosure.view';

/** The public reads of filings; the statements are DisclosuresRepository's. */
@Injectable()
export class DisclosuresService {
  constructor(private readonly store: DisclosuresRepository) {}

  async recent(limit: number): Promise<DisclosureView[]> {
    return this.store.list({ limit });
  }

  async findOne(rceptNo: string): Promise<DisclosureView | null> {
    return this.store.findOne(rceptNo);
  }

  async list(filter: DisclosureFilter): Promise<DisclosureView[]> {
    return this.store.list(filter);
  }
}
