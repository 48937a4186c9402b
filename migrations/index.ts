import { UsersAndIdentities1763700000000 } from './1763700000000-users-and-identities';

/** Every migration, oldest first. Applied at start; forward-only. */
export const MIGRATIONS = [UsersAndIdentities1763700000000];
