import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Injectable } from '@nestjs/common';

/** Who this instance is in the fleet: named in the registry, the leadership session and the logs. */
@Injectable()
export class InstanceIdentity {
  readonly host = hostname().slice(0, 40);
  readonly pid = process.pid;
  /** Unique even for several instances in one process (the tests run three). */
  readonly id = `${this.host}:${this.pid}:${randomBytes(3).toString('hex')}`;
}
