import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * The serious and critical accessibility problems axe-core finds in the page, one line each (evaluated over the
 * DevTools protocol: the portal's CSP admits no injected script). The portal's browser tests.
 */
export async function accessibilityProblems(p: Page): Promise<string[]> {
  await p.evaluate(AXE);
  const violations = await p.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run: (ctx: Document) => Promise<{ violations: { id: string; impact: string; help: string; nodes: unknown[] }[] }>;
        };
      }
    ).axe;
    return (await axe.run(document)).violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length }));
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes})`);
}
