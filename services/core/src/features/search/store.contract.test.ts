import { expect } from 'vitest';
import { describeStoreContract, useContractDatabase } from '@cluster/db/store-contract';
import { migrations } from '../../migrations/index.ts';
import { fakeWorld, postgresWorld } from '../../shared/contract-world.ts';

// SearchStore held to Postgres, as far as the fake goes: matching words, tenancy, limit, and the order of equal matches.
describeStoreContract('SearchStore', {
  database: useContractDatabase('core', migrations),
  fake: fakeWorld,
  postgres: postgresWorld,
  cases: {
    'finds the records whose title or body hold every word, in the organization (one project’s with projectId)': async (w) => {
      const org = await w.organization();
      const project = await w.project(org, { name: 'Apollo', description: 'moon programme' });
      const other = await w.project(org, { name: 'Gemini', description: 'orbital docking' });
      const entry = await w.entry(project, { title: 'Broken parachute', description: 'the drogue parachute failed' });
      const release = await w.release(other, { name: 'Parachute fix', description: 'drogue replaced' });
      const stranger = await w.project(await w.organization(), { name: 'Parachute', description: 'drogue' });
      await w.entry(stranger, { title: 'parachute drogue' });
      const search = async (q: string, projectId: string | null = null) =>
        (await w.stores.search.search(org, projectId, q, 10)).map((r) => `${r.type}:${r.title}`).sort();
      expect(await search('parachute drogue')).toEqual(['entry:Broken parachute', 'release:Parachute fix']);
      expect(await search('parachute', project.id)).toEqual(['entry:Broken parachute']);
      expect(await search('docking')).toEqual(['project:Gemini']);
      expect(await search('nothing')).toEqual([]);
      const [hit] = await w.stores.search.search(org, other.id, 'drogue', 10);
      expect(hit).toEqual({ type: 'release', id: release.id, title: 'Parachute fix', projectId: other.id });
      expect(entry.id).toBeDefined();
    },
    'equal matches come newest first, at most `limit` of them': async (w) => {
      const org = await w.organization();
      const project = await w.project(org, { name: 'P', description: 'p' });
      const made = [];
      for (const n of ['one', 'two', 'three']) made.push(await w.entry(project, { title: `rocket ${n}`, description: 'x' }));
      const rows = await w.stores.search.search(org, null, 'rocket', 2);
      expect(rows.map((r) => r.id)).toEqual([made[2].id, made[1].id]);
    },
  },
  postgresOnly: {
    'a match in the title ranks above a match in the body': {
      reason: 'ts_rank over weighted tsvectors; the fake matches words without ranking',
      async test(w) {
        const org = await w.organization();
        const project = await w.project(org, { name: 'P', description: 'p' });
        const title = await w.entry(project, { title: 'telemetry dropouts', description: 'x' });
        await w.entry(project, { title: 'other', description: 'telemetry noted' });
        expect((await w.stores.search.search(org, null, 'telemetry', 10))[0].id).toBe(title.id);
      },
    },
    'words match by their stem, and the query reads "quotes", or and -not': {
      reason: 'english stemming and websearch_to_tsquery; the fake matches lower-cased substrings of every word',
      async test(w) {
        const org = await w.organization();
        const project = await w.project(org, { name: 'P', description: 'p' });
        const a = await w.entry(project, { title: 'engines failing', description: 'x' });
        const b = await w.entry(project, { title: 'engine fire', description: 'x' });
        const ids = async (q: string) => (await w.stores.search.search(org, null, q, 10)).map((r) => r.id).sort();
        expect(await ids('engine')).toEqual([a.id, b.id].sort());
        expect(await ids('engine -fire')).toEqual([a.id]);
        expect(await ids('fire or failed')).toEqual([a.id, b.id].sort());
      },
    },
  },
});
