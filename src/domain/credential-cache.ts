/**
 * Recognised credentials, remembered for a moment: under load a key costs its three lookups
 * (credential, user, organisation) once per `ttlMs` instead of on every request. A revoked key or a
 * deactivated user is therefore refused within `ttlMs` on every process sharing the database.
 * Refusals are never remembered, so a key made a moment ago works at once; concurrent first
 * requests with one key share a single lookup.
 */
import { LRUCache } from 'lru-cache';
import type { Collections } from '../db/collections.js';
import {
  authenticate,
  type Caller,
  type CredentialPolicy,
  hashSecret,
  type PresentedCredential,
} from './viewer.js';

export interface CredentialCacheOptions {
  /** How long a recognised credential is trusted without asking the database; 0: always ask. */
  ttlMs: number;
  /** Credentials remembered at most (least recently used forgotten first). */
  max?: number;
}

export class CredentialCache {
  private readonly cache: LRUCache<string, Caller, PresentedCredential> | undefined;

  constructor(
    private readonly collections: Collections,
    private readonly policy: CredentialPolicy,
    options: CredentialCacheOptions,
  ) {
    this.cache =
      options.ttlMs > 0
        ? new LRUCache<string, Caller, PresentedCredential>({
            max: options.max ?? 10_000,
            ttl: options.ttlMs,
            // A refusal or an outage rejects the fetch and leaves nothing behind.
            fetchMethod: (_key, _stale, { context }) => authenticate(this.collections, context, this.policy),
          })
        : undefined;
  }

  /** Who presented the credential; UNAUTHENTICATED (DomainError) when it is not recognised. */
  async recognise(presented: PresentedCredential): Promise<Caller> {
    if (!this.cache) return authenticate(this.collections, presented, this.policy);
    // Keyed by the secret's hash, as it is stored: the plain secret is not kept, even in memory.
    const caller = await this.cache.fetch(`${presented.kind}:${hashSecret(presented.secret)}`, {
      context: presented,
    });
    return caller!;
  }
}
