import { sealedPrefix, type SecretBox } from '@cluster/platform';
import { resealReceiver } from '../../sender/receiver.ts';
import type { SealedColumn, SubscriptionStore } from './store.ts';

/** What a re-seal did: values moved to the current key, and subscriptions whose secret no listed key opens. */
export interface ResealReport {
  currentKeyId: string;
  /** Sealed values moved (a subscription in a rotation's grace period has two). */
  resealed: number;
  /** Ids of subscriptions whose secret did not open (sealed under a key no longer listed). */
  unopenable: string[];
}

/**
 * Seals every stored signing secret under the keyring's current key (the last step of
 * a key rotation, before the old key leaves the keyring: docs/runbook.md): each
 * subscription's secret, and the secret a rotation replaced while its grace period runs (it
 * still signs beside the new one; one that expired is left, as nothing reads it). Walks the
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
    for (const { id, secretSealed, previousSecretSealed, receiverSealed } of batch) {
      const sealed: [SealedColumn, string | null][] = [
        ['secretSealed', secretSealed],
        ['previousSecretSealed', previousSecretSealed],
        // Custom headers and receiver auth (sealed under their own binding: sender/receiver.ts).
        ['receiverSealed', receiverSealed ?? null],
      ];
      for (const [column, value] of sealed) {
        if (value === null || value.startsWith(prefix)) continue;
        let resealed: string;
        try {
          resealed = column === 'receiverSealed' ? resealReceiver(box, id, value) : box.seal(box.open(value, id), id);
        } catch {
          if (!report.unopenable.includes(id)) report.unopenable.push(id);
          continue;
        }
        if (await store.replaceSealed(id, value, resealed, column)) report.resealed++;
      }
    }
    afterId = batch[batch.length - 1].id;
  }
}
