// The harness's own servers (node-proxy, sse-upstream, otlp-sink) are child processes: each
// listens on loopback and exits on SIGTERM/SIGINT or when the harness's pipe to its stdin closes
// (so none outlives a harness that died). Also their command lines.
import { parseArgs } from 'node:util';

/**
 * The child's command line: `--port N` (0 when missing) plus `options`, read with node:util
 * parseArgs. On a mistake prints the message and `usage`, and exits 2.
 */
export function childArgs(usage, options = {}) {
  try {
    const { values } = parseArgs({ options: { port: { type: 'string' }, ...options } });
    return { ...values, port: Number(values.port ?? 0) };
  } catch (err) {
    console.error(`${err.message}\n${usage}`);
    process.exit(2);
  }
}

/** The `--port N` of a child that takes nothing else. */
export function portArg(usage) {
  const { port } = childArgs(usage);
  if (!port) {
    console.error(usage);
    process.exit(2);
  }
  return port;
}

/** Listen on 127.0.0.1:`port` until a signal arrives or the harness's end of stdin closes. */
export function serveUntilParentGoes(server, { port, name, url }) {
  server.listen({ port, host: '127.0.0.1', backlog: 4096 }, () => {
    process.stderr.write(`${name} listening on ${url ?? `http://127.0.0.1:${port}`}\n`);
  });
  const shutdown = () => {
    server.close();
    server.closeAllConnections?.();
    process.exit(0);
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  process.stdin.on('end', shutdown);
  process.stdin.on('error', shutdown);
  process.stdin.resume();
}
