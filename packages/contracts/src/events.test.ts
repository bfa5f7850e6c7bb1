import { describe, expect, it } from 'vitest';
import { EVENT_NAMES, eventNamesMatching, isEventNamePattern, selectorsOf, subscribesTo } from './events.ts';

describe('event name wildcards', () => {
  it('recognises `*` and `family.*` only', () => {
    for (const p of ['*', 'entry.*', 'cost.estimation.*']) expect(isEventNamePattern(p)).toBe(true);
    for (const p of ['entry*', '*.created', 'entry.*.x', '.*', 'entry.**', 'entry.created', 'Entry.*', ''])
      expect(isEventNamePattern(p)).toBe(false);
  });

  it('expands a wildcard to the vocabulary names it stands for; an exact name to itself', () => {
    expect(eventNamesMatching('*')).toEqual([...EVENT_NAMES]);
    expect(eventNamesMatching('entry.*')).toEqual(EVENT_NAMES.filter((n) => n.startsWith('entry.')));
    expect(eventNamesMatching('entry.*')).toContain('entry.created');
    expect(eventNamesMatching('cost.*')).toContain('cost.estimation.run.started');
    expect(eventNamesMatching('entry.created')).toEqual(['entry.created']);
    // Internal events (project.created) are not covered; unknown families stand for nothing.
    expect(eventNamesMatching('project.*')).not.toContain('project.created');
    expect(eventNamesMatching('release.created.*')).toEqual([]);
    expect(eventNamesMatching('nope')).toEqual([]);
    expect(eventNamesMatching('entry*')).toEqual([]);
  });

  it('lists the selectors of an event name, and matches subscriptions by them', () => {
    expect(selectorsOf('cost.estimation.run.started')).toEqual([
      'cost.estimation.run.started',
      'cost.*',
      'cost.estimation.*',
      'cost.estimation.run.*',
      '*',
    ]);
    expect(subscribesTo(['entry.*'], 'entry.updated')).toBe(true);
    expect(subscribesTo(['entry.*'], 'release.created')).toBe(false);
    expect(subscribesTo(['entry.created'], 'entry.updated')).toBe(false);
    expect(subscribesTo(['*'], 'invoice.paid')).toBe(true);
    expect(subscribesTo(['cost.estimation.*'], 'cost.approved')).toBe(false);
    // A family is whole segments: `entry.*` does not cover `entryx.created`.
    expect(subscribesTo(['entry.*'], 'entryx.created')).toBe(false);
  });
});
