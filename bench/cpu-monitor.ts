import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's CPU times (USER_HZ; 100 on every mainstream Linux). */
const TICKS_PER_SECOND = 100;

interface Sample {
  atMs: number;
  /** Busy ticks of the whole machine. */
  busy: number;
  /** Busy ticks of this process, its descendants (the server, the load generator) and PostgreSQL's processes. */
  ours: number;
}

/**
 * Tells how much CPU processes outside the bench used between two marks, so a
 * run disturbed by other work on the machine (a test run, a build) is visible.
 * Linux only (reads /proc); elsewhere it reports nothing.
 */
export class CpuMonitor {
  private last: Sample | null;

  constructor() {
    this.last = CpuMonitor.sample();
  }

  /** Average cores used by other processes since the previous mark (null when /proc is unreadable). */
  mark(): number | null {
    const now = CpuMonitor.sample();
    const previous = this.last;
    this.last = now;
    if (now === null || previous === null) return null;
    const seconds = (now.atMs - previous.atMs) / 1000;
    if (seconds <= 0) return null;
    const foreignTicks = now.busy - previous.busy - (now.ours - previous.ours);
    return Math.max(0, foreignTicks / TICKS_PER_SECOND / seconds);
  }

  private static sample(): Sample | null {
    try {
      const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
      // user nice system idle iowait irq softirq steal ...: interrupt time is left out, since the
      // bench's own loopback traffic causes most of it and it is not charged to any process.
      const busy = cpu[0] + cpu[1] + cpu[2];
      const parents = new Map<number, number>();
      const postgresPids = new Set<number>();
      const times = new Map<number, number>();
      for (const entry of readdirSync('/proc')) {
        if (!/^\d+$/.test(entry)) continue;
        let stat: string;
        try {
          stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        } catch {
          continue; // exited meanwhile
        }
        // The command name may contain spaces and parentheses: fields start after the last ')'.
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        const pid = Number(entry);
        // PostgreSQL serves the bench: its processes are ours, though pg_ctl detaches them (and a configured
        // server's other sessions count too). The command name is between the first '(' and the last ')'.
        if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).startsWith('postgres')) postgresPids.add(pid);
        parents.set(pid, Number(fields[1]));
        // utime, stime, cutime, cstime (children that were waited for count for their parent)
        times.set(pid, Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]));
      }
      let ours = 0;
      for (const [pid, ticks] of times) {
        if (postgresPids.has(pid)) {
          ours += ticks;
          continue;
        }
        for (let cursor: number | undefined = pid; cursor !== undefined && cursor > 1; cursor = parents.get(cursor)) {
          if (cursor === process.pid) {
            ours += ticks;
            break;
          }
        }
      }
      return { atMs: performance.now(), busy, ours };
    } catch {
      return null;
    }
  }
}
