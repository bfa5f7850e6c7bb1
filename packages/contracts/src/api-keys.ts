/**
 * The shape of an API key, `fbk_<8-char id>_<40-char secret>`: the core looks a key up by its
 * prefix `fbk_<id>`, and the gateway refuses a key of any other shape without asking the core
 * when its address is over the failed-authentication limit. Declared once for both.
 */
const API_KEY_SHAPE = /^(fbk_[A-Za-z0-9]{8})_[A-Za-z0-9]{40}$/;

/** The display prefix of a presented key, or undefined when it is not of our shape. */
export function apiKeyPrefixOf(key: string): string | undefined {
  return API_KEY_SHAPE.exec(key)?.[1];
}
