/**
 * Preloaded (`-r`) into the traced server under test: starts OpenTelemetry the way main.ts's
 * first import does, before the application's libraries load. It exports only when the
 * process's environment names an OTLP endpoint (the bench's loopback receiver).
 */
import '../src/tracing/preload';
