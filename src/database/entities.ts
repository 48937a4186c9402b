import { UserIdentityEntity } from '../users/user-identity.entity';
import { UserEntity } from '../users/user.entity';

/** Every TypeORM entity of the service; features add theirs here. */
export const ENTITIES = [UserEntity, UserIdentityEntity];
