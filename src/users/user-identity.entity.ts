import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { UserEntity } from './user.entity';

export const IDENTITY_PROVIDERS = ['idp1', 'idp2', 'idp3'] as const;
export type IdentityProvider = (typeof IDENTITY_PROVIDERS)[number];

/** One sign-in identity: a provider's subject, bound to exactly one user. Written only by UsersRepository. */
@Entity('user_identities')
@Unique('uq_user_identities_provider_subject', ['provider', 'subject'])
@Check('ck_user_identities_provider', `provider IN ('idp1', 'idp2', 'idp3')`)
@Index('ix_user_identities_user_id', ['userId'])
export class UserIdentityEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'user_identities_user_id_fkey' })
  user?: UserEntity;

  @Column({ type: 'varchar', length: 16 })
  provider: IdentityProvider;

  @Column({ type: 'varchar', length: 255 })
  subject: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
