/**
 * `catalog`: the public catalog's AI Catalog document (`/.well-known/ai-catalog.json`,
 * src/control/ai-catalog.ts). `host` names who runs it — the draft's Host Info
 * (Agent-Card/ai-catalog `specification/ai-catalog.md` §"Host Info"), which its "Discoverable"
 * conformance level asks for. Nothing else is configurable: which agents it lists is access
 * control's (`agents.{name}.access.allow`), as for `/agents`.
 */
import { z } from 'zod';
import { httpUrl } from './fields.js';

export const catalogSchema = z
  .object({
    /** Absent: the document has no `host` (the draft's "Minimal" level). */
    host: z
      .object({
        displayName: z.string().min(1),
        /** A verifiable identifier of the operator, e.g. `did:web:example.com` or a domain name. */
        identifier: z.string().min(1).optional(),
        documentationUrl: httpUrl.optional(),
        /** Any URL: the draft's own example is a `data:` URI. */
        logoUrl: z.url().optional(),
      })
      .strict()
      .optional(),
  })
  .strict()
  .prefault({});

export type CatalogConfig = z.output<typeof catalogSchema>;
