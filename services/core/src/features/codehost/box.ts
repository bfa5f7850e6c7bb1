import { createSecretBox } from '@cluster/platform';
import { DEV_CODEHOST_KEY_MATERIAL } from '../../config.ts';

/** The keyring that seals organizations' code-host webhook secrets at rest (CODEHOST_SECRET_KEY): the core's and the admin CLI's. */
export function codehostSecretBox(secretKeys: readonly string[] | undefined) {
  return createSecretBox(secretKeys ?? [DEV_CODEHOST_KEY_MATERIAL], {
    salt: 'cluster.codehost',
    info: 'codehost-secret-at-rest:v1',
  });
}
