import { describe, expect, it } from 'vitest';
import { stampEvents } from './write.ts';

describe('stampEvents', () => {
  it("gives every event the write's organization and acting user, unless the event names its own (even null)", () => {
    const base = { entityType: 'entry', entityId: 'e1', payload: {} };
    const stamped = stampEvents(
      [
        { ...base, eventName: 'entry.created' },
        { ...base, eventName: 'agreement.signed', actorUserId: null },
        { ...base, eventName: 'entry.updated', actorUserId: 'u2' },
      ],
      'org-1',
      'u1',
    );
    expect(stamped.map((e) => [e.eventName, e.organizationId, e.actorUserId])).toEqual([
      ['entry.created', 'org-1', 'u1'],
      ['agreement.signed', 'org-1', null],
      ['entry.updated', 'org-1', 'u2'],
    ]);
  });
});
