import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { USER_FIELDS } from '@cluster/contracts';
import { describeStoreContract, useContractDatabase } from '@cluster/db/store-contract';
import { migrations } from '../../migrations/index.ts';
import { fakeWorld, postgresWorld } from '../../shared/contract-world.ts';

const page = { page: 1, pageSize: 10 };

// UserStore held to Postgres.
describeStoreContract('UserStore', {
  database: useContractDatabase('core', migrations),
  fake: fakeWorld,
  postgres: postgresWorld,
  cases: {
    'insert and update answer the contract’s USER_FIELDS only (never passwordHash or mfaSecret)': async (w) => {
      const org = await w.organization();
      const user = await w.user(org, { name: 'Ada' });
      expect(Object.keys(user).sort()).toEqual([...USER_FIELDS].sort());
      expect(user).toMatchObject({ organizationId: org, name: 'Ada', role: 'member', metadata: null });
      const updated = await w.stores.users.update(user.id, { name: 'Ada L.', metadata: { team: ['x'] } });
      expect(Object.keys(updated).sort()).toEqual([...USER_FIELDS].sort());
      expect(updated).toMatchObject({ id: user.id, name: 'Ada L.', metadata: { team: ['x'] } });
      expect(await w.stores.users.findById(user.id)).toEqual(updated);
    },
    'find: a user of the organization (a member of the project with memberOf); non-UUIDs find nothing': async (w) => {
      const org = await w.organization();
      const project = await w.project(org);
      const member = await w.user(org);
      const outsider = await w.user(org);
      await w.stores.members.insert({ projectId: project.id, userId: member.id });
      expect(await w.stores.users.find(org, member.id)).toEqual(member);
      expect(await w.stores.users.find(org, member.id, { memberOf: project.id })).toEqual(member);
      expect(await w.stores.users.find(org, outsider.id, { memberOf: project.id })).toBeUndefined();
      expect(await w.stores.users.find(await w.organization(), member.id)).toBeUndefined();
      expect(await w.stores.users.find(org, 'not-a-uuid')).toBeUndefined();
      expect(await w.stores.users.findById('not-a-uuid')).toBeUndefined();
      expect(await w.stores.users.findById(randomUUID())).toBeUndefined();
    },
    'findByEmail compares e-mails case-insensitively, within the organization': async (w) => {
      const org = await w.organization();
      const user = await w.user(org, { email: 'Ada.Lovelace@Example.com' });
      expect(await w.stores.users.findByEmail(org, 'ada.lovelace@example.COM')).toEqual(user);
      expect(await w.stores.users.findByEmail(await w.organization(), user.email)).toBeUndefined();
    },
    'list: newest first, only members of memberOf, only one role; listAll: oldest first, four fields': async (w) => {
      const org = await w.organization();
      const project = await w.project(org);
      const a = await w.user(org, { role: 'admin' });
      const b = await w.user(org);
      const c = await w.user(org);
      await w.user(await w.organization());
      await w.stores.members.insert({ projectId: project.id, userId: a.id });
      await w.stores.members.insert({ projectId: project.id, userId: c.id });
      const ids = async (filter: { memberOf?: string; role?: string }) =>
        (await w.stores.users.list(org, filter, page)).data.map((u) => u.id);
      expect(await ids({})).toEqual([c.id, b.id, a.id]);
      expect(await ids({ memberOf: project.id })).toEqual([c.id, a.id]);
      expect(await ids({ role: 'admin' })).toEqual([a.id]);
      expect(await w.stores.users.listAll(org)).toEqual(
        [a, b, c].map(({ id, email, name, role }) => ({ id, email, name, role })),
      );
    },
    'invites are recorded; deleteExternalLink removes one link': async (w) => {
      const org = await w.organization();
      const user = await w.user(org);
      const invite = await w.stores.users.insertInvite({
        organizationId: org,
        userId: user.id,
        email: user.email,
        invitedByUserId: null,
        apiKeyId: randomUUID(),
      });
      expect(invite.id).toEqual(expect.any(String));
      const ref = { provider: 'hr', externalType: 'person', externalId: randomUUID() };
      const link = await w.stores.users.insertExternalLink({
        organizationId: org,
        projectId: null,
        ref,
        alignEntityType: 'user',
        alignEntityId: user.id,
      });
      expect(link).toBeDefined();
      await w.stores.users.deleteExternalLink(link?.id ?? '');
      expect(await w.stores.users.findExternalLink(org, ref)).toBeUndefined();
    },
  },
  postgresOnly: {
    'one user per e-mail in an organization, whatever its case': {
      reason: 'the unique index users_org_email on lower(email); the fake inserts what the service gives it (which looks first)',
      async test(w) {
        const org = await w.organization();
        await w.user(org, { email: 'same@example.com' });
        await expect(w.user(org, { email: 'SAME@example.com' })).rejects.toThrow(/users_org_email/);
      },
    },
  },
});
