// Preloaded (node --import) into the gateway only when profiling: turn SIGTERM/SIGINT into a
// normal process.exit() so `node --cpu-prof` writes its .cpuprofile when the harness stops it.
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
