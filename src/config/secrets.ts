/**
 * The config keys that hold secrets, and the two rules about them: a problem report never shows
 * their value (src/config/problems.ts), and a value that still carries a placeholder word from a
 * template (`replace-me-with-openssl-rand-hex-32`, `changeme`) is refused — a gateway that starts
 * with the example's token is one anybody who read the example can call (issue #30).
 */

import type { Problem } from './problem.js';

/** Key paths of secrets; `*` is any one key (a client, an agent, a header name). */
const SECRET_PATHS: readonly (readonly string[])[] = [
  ['admin', 'token'],
  ['auth', 'apiKeys', '*', 'key'],
  ['auth', 'jwt', 'secret'],
  ['auth', 'pageTokenSecret'],
  ['cards', 'signing', 'key'],
  // `redis://user:password@host`: the password is in the URL.
  ['state', 'redis', 'url'],
  // The credentials the gateway injects upstream (`Authorization: Bearer …`).
  ['agents', '*', 'headers', '*'],
];

/** Whether a key path is a secret or inside one (a JWK's members under `cards.signing.key`). */
export function isSecretPath(path: readonly PropertyKey[]): boolean {
  return SECRET_PATHS.some(
    (secret) => path.length >= secret.length && secret.every((key, i) => key === '*' || key === path[i]),
  );
}

/** Words that mark a value as a template's placeholder, in any case, with `-`, `_` or nothing between (not `replacement`). */
const PLACEHOLDER = /(?:replace[-_]?me|change[-_]?me)(?![a-z])/i;

/** Secrets whose value (after `${ENV}` substitution) is still a placeholder. */
export function placeholderProblems(raw: unknown): Problem[] {
  const found: Problem[] = [];
  const visit = (node: unknown, path: PropertyKey[]) => {
    if (typeof node === 'string') {
      const word = isSecretPath(path) ? PLACEHOLDER.exec(node)?.[0] : undefined;
      if (word)
        found.push({
          path,
          message: `is a placeholder (it contains "${word}"): set the real secret, e.g. \`openssl rand -hex 32\``,
        });
    } else if (Array.isArray(node)) node.forEach((item, i) => visit(item, [...path, i]));
    else if (node && typeof node === 'object')
      for (const [key, value] of Object.entries(node)) visit(value, [...path, key]);
  };
  visit(raw, []);
  return found;
}
