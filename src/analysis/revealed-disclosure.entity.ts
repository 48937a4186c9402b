import { CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { DisclosureEntity } from '../disclosures/disclosure.entity';
import { UserEntity } from '../users/user.entity';

/** A filing whose full analysis a user has revealed (paid one quota unit for). Written only by RevealedDisclosuresRepository. */
@Entity('revealed_disclosures')
export class RevealedDisclosureEntity {
  @PrimaryColumn({ name: 'user_id', type: 'integer' })
  userId: number;

  @PrimaryColumn({ name: 'rcept_no', type: 'char', length: 14 })
  rceptNo: string;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'revealed_disclosures_user_id_fkey' })
  user?: UserEntity;

  @ManyToOne(() => DisclosureEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'rcept_no', foreignKeyConstraintName: 'revealed_disclosures_rcept_no_fkey' })
  disclosure?: DisclosureEntity;

  @CreateDateColumn({ name: 'revealed_at', type: 'timestamptz' })
  revealedAt: Date;
}
