/**
 * The gateway's one version: package.json's `version`, read when the module loads, so a release
 * bumps one file (and the lockfile npm writes with it). `../package.json` is the repository root
 * from both src/ (tests, tsx) and dist/ (the CLI), and the image copies package.json beside dist/
 * (Dockerfile). It names the gateway in `--version`, the User-Agent of the card and JWKS fetches,
 * `a2a_gateway_build_info` and the traces' `service.version`.
 */
import { createRequire } from 'node:module';

const pkg = createRequire(import.meta.url)('../package.json') as { version: string };

export const GATEWAY_VERSION = pkg.version;
export const GATEWAY_USER_AGENT = `a2a-gateway/${GATEWAY_VERSION}`;
