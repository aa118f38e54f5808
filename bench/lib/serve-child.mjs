// The harness's own servers (node-proxy, sse-upstream, otlp-sink) are child processes: each
// listens on loopback and exits on SIGTERM/SIGINT or when the harness's pipe to its stdin closes
// (so none outlives a harness that died).
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
