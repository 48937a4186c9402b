/** Where a purchase was made: the App Store sandbox and Play license testers' purchases are `sandbox`. */
export type StoreEnvironment = 'production' | 'sandbox';

/** A store's word on one subscription, as the purchase records keep it. */
export interface StoreState {
  /** The store's own state name, kept on the purchase row. */
  state: string;
  productId: string | null;
  /** When the service ends: the expiry, or the end of the grace period while in grace. */
  expiryTime: Date | null;
  /** The store says the subscription serves now (active or in grace, not revoked). */
  serving: boolean;
  environment: StoreEnvironment;
  /** The transaction in force (iOS transactionId, Android latestOrderId). */
  transactionId: string | null;
  revokedAt: Date | null;
  /**
   * The store's time of this state: Apple's signedDate, or when Play was re-read. A state
   * older than the one stored for the purchase is not applied (stores redeliver late).
   */
  signedAt: Date;
  /** Android: the purchase token this one replaced (plan change). */
  linkedStoreRef: string | null;
  /**
   * When the change this state reports took effect (a refund's revocation, a renewal's
   * start, an expiry): the downgrade moment if the user's tier drops.
   */
  effectiveAt: Date;
}
