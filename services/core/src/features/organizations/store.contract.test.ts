import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { describeStoreContract, useContractDatabase } from '@cluster/db/store-contract';
import { migrations } from '../../migrations/index.ts';
import { fakeWorld, postgresWorld } from '../../shared/contract-world.ts';

// OrganizationStore held to Postgres.
describeStoreContract('OrganizationStore', {
  database: useContractDatabase('core', migrations),
  fake: fakeWorld,
  postgres: postgresWorld,
  cases: {
    'insert answers the row with the defaults (API enabled, USD); find reads it back; other ids find nothing': async (w) => {
      const org = await w.stores.organizations.insert(`Org ${randomUUID()}`);
      expect(org).toMatchObject({ apiEnabled: true, currency: 'USD' });
      expect(org.createdAt).toBeInstanceOf(Date);
      expect(await w.stores.organizations.find(org.id)).toEqual(org);
      expect(await w.stores.organizations.find(randomUUID())).toBeUndefined();
      expect(await w.stores.organizations.find('not-a-uuid')).toBeUndefined();
    },
    'findByName answers the oldest organization of that name': async (w) => {
      const name = `Twin ${randomUUID()}`;
      const first = await w.stores.organizations.insert(name);
      await w.stores.organizations.insert(name);
      expect((await w.stores.organizations.findByName(name))?.id).toBe(first.id);
      expect(await w.stores.organizations.findByName(`None ${randomUUID()}`)).toBeUndefined();
    },
    'setApiEnabled turns the switch and answers the row; an unknown or non-UUID id answers undefined': async (w) => {
      const org = await w.stores.organizations.insert(`Switch ${randomUUID()}`);
      expect(await w.stores.organizations.setApiEnabled(org.id, false)).toMatchObject({ id: org.id, apiEnabled: false });
      expect((await w.stores.organizations.find(org.id))?.apiEnabled).toBe(false);
      expect(await w.stores.organizations.setApiEnabled(randomUUID(), true)).toBeUndefined();
      expect(await w.stores.organizations.setApiEnabled('not-a-uuid', true)).toBeUndefined();
    },
  },
});
