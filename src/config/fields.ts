/**
 * Field types the config schema sections share: durations, sizes and http(s) URLs, each parsed
 * and checked once at start-up (principle 11).
 */
import { z } from 'zod';
import { parseDuration } from './duration.js';
import { parseSize } from './size.js';

/** The listeners' default ports (`listen.port`, `admin.listen.port`), also read by cross-checks.ts. */
export const LISTEN_PORT = 8080;
export const ADMIN_PORT = 9464;

export const duration = (fallback: string) =>
  z
    .union([z.string(), z.number()])
    .prefault(fallback)
    .transform((value, ctx) => {
      const ms = parseDuration(value);
      if (typeof ms === 'string') {
        ctx.addIssue({ code: 'custom', message: ms });
        return z.NEVER;
      }
      return ms;
    });

/** A duration that cannot be `none` or 0: a period or a limit the gateway must have. */
export const durationAboveZero = (fallback: string) =>
  duration(fallback).refine((ms) => ms > 0, { message: 'must be more than 0 (none is not allowed here)' });

export const sizeValue = z.union([z.string(), z.number()]).transform((value, ctx) => {
  const bytes = parseSize(value);
  if (typeof bytes === 'string') {
    ctx.addIssue({ code: 'custom', message: bytes });
    return z.NEVER;
  }
  return bytes;
});
export const size = (fallback: string | number) => sizeValue.prefault(fallback);

/** An absolute http(s) URL without credentials, as written (trailing slash kept). */
export const httpUrlAsWritten = z
  .string()
  .refine((u) => {
    try {
      return ['http:', 'https:'].includes(new URL(u).protocol);
    } catch {
      return false;
    }
  }, 'must be an absolute http:// or https:// URL')
  // The gateway never sends userinfo upstream, and the URL shows in the fleet catalog and logs.
  .refine((u) => {
    try {
      const url = new URL(u);
      return url.username === '' && url.password === '';
    } catch {
      return true;
    }
  }, 'must not hold credentials (user:password@): give them as headers, e.g. headers: { Authorization: … }');

/** The same, its trailing slashes dropped (a base URL paths are appended to). */
export const httpUrl = httpUrlAsWritten.transform((u) => u.replace(/\/+$/, ''));

/**
 * An agent's base URL (`url`, `upstreams[].url`): every call's path is appended to it, so a query
 * or a fragment would end up inside the path the agent gets (issue #29): refused.
 */
export const agentBaseUrl = httpUrlAsWritten
  .refine((u) => {
    try {
      const url = new URL(u);
      return url.search === '' && url.hash === '' && !/[?#]/.test(u);
    } catch {
      return true;
    }
  }, 'must not have a query (?…) or a fragment (#…): the path of every call is appended to it')
  .transform((u) => u.replace(/\/+$/, ''));
