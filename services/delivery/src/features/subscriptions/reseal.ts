import { sealedPrefix, type SecretBox } from '@cluster/platform';
import type { SubscriptionStore } from './store.ts';

/** What a re-seal did: values moved to the current key, and subscriptions whose secret no listed key opens. */
export interface ResealReport {
  currentKeyId: string;
  resealed: number;
  /** Ids of subscriptions whose secret did not open (sealed under a key no longer listed). */
  unopenable: string[];
}

/**
 * Seals every stored signing secret under the keyring's current key (the last step of
 * a key rotation, before the old key leaves the keyring: docs/runbook.md). Walks the
 * subscriptions not yet sealed under it in id order, in batches; each value is
 * replaced only if unchanged meanwhile, so a concurrent rotate-secret wins. The
 * secrets themselves do not change: receivers notice nothing.
 */
export async function resealSecrets(store: SubscriptionStore, box: SecretBox, batchSize = 500): Promise<ResealReport> {
  const currentKeyId = box.keyIds[0];
  const prefix = sealedPrefix(currentKeyId);
  const report: ResealReport = { currentKeyId, resealed: 0, unopenable: [] };
  let afterId: string | null = null;
  for (;;) {
    const batch = await store.sealedOtherwise(prefix, afterId, batchSize);
    if (batch.length === 0) return report;
    for (const { id, secretSealed } of batch) {
      let secret: string;
      try {
        secret = box.open(secretSealed, id);
      } catch {
        report.unopenable.push(id);
        continue;
      }
      if (await store.replaceSealed(id, secretSealed, box.seal(secret, id))) report.resealed++;
    }
    afterId = batch[batch.length - 1].id;
  }
}
