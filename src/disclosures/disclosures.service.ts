import { Injectable } from '@nestjs/common';
import { DisclosureStore, type DisclosureFilter } from './disclosure-store';
import type { DisclosureView } from './disclosure.view';

/** The public reads of filings; the statements are DisclosureStore's. */
@Injectable()
export class DisclosuresService {
  constructor(private readonly store: DisclosureStore) {}

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
