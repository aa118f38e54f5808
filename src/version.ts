import { createRequire } from 'node:module';

const pkg = createRequire(import.meta.url)('../package.json') as { version: string };

export const GATEWAY_VERSION = pkg.version;
export const GATEWAY_USER_AGENT = `a2a-gateway/${GATEWAY_VERSION}`;
