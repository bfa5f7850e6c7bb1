// How a commit message or a pull request's title or body references an entry (docs/codehost.md):
// `E-<entryNumber>`. The core links by it (features/codehost); the evidence service asks GitHub
// whether the text it holds still references the entries a fact is linked to. One parser for both.

/** `E-<entryNumber>`, case-insensitive, on word boundaries (GitHub owns `#<n>`). */
const ENTRY_REFERENCE = /\bE-(\d{1,9})\b/gi;

/** The entry numbers `texts` reference (`E-12`, `e-12`), each once, ascending. */
export function entryNumbersIn(...texts: (string | null | undefined)[]): number[] {
  const numbers = new Set<number>();
  for (const text of texts) {
    for (const m of (text ?? '').matchAll(ENTRY_REFERENCE)) {
      const n = Number(m[1]);
      if (n >= 1) numbers.add(n);
    }
  }
  return [...numbers].sort((a, b) => a - b);
}
