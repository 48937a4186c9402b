/** A store's word on one subscription, as the tier transitions consume it. */
export interface StoreState {
  /** The store's own state name, kept on the purchase row. */
  state: string;
  productId: string | null;
  /** When the service ends: the expiry, or the end of the grace period while in grace. */
  expiryTime: Date | null;
  /** The store says the subscription serves now (active or in grace, not revoked). */
  serving: boolean;
}
