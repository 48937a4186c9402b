/** What an anchor server is started with (argv[2], a JSON file) and what it tells its parent. */
export interface AnchorBodies {
  /** The JSON text each URL (path and query, as requested) answers. */
  bodies: Record<string, string>;
}

/** Sent over IPC once the server listens. */
export interface AnchorReady {
  port: number;
}
