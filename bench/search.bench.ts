/**
 * Search latency benchmark: seeds 10,000 entries (plus releases, wiki pages and a
 * noisy second organization), then times GET /api/v1/search end to end through the
 * gateway and the core, and prints p50/p95/p99 per query shape.
 *
 * Run against the local servers (as the tests do):
 *   TEST_DATABASE_URL=postgres://postgres:postgres@127.0.0.1:54329/postgres \
 *   KAFKA_BROKERS=127.0.0.1:19092 LOG_LEVEL=silent npx tsx bench/search.bench.ts
 *
 * Options: BENCH_ENTRIES (default 10000), BENCH_ROUNDS (requests per query, default 100).
 */
import os from 'node:os';
import pg from 'pg';
import { startTestCluster } from '../test/support/cluster.ts';
import { requiredField } from './support/fields.ts';

// The benchmark sends more than the 600 requests per minute a key may make.
process.env.RATE_LIMIT_PER_MINUTE ??= '1000000';

const SEARCH_SQL = `SELECT d."entityType" AS type, d."entityId" AS id, d.title, d."projectId", ts_rank(d.document, query) AS rank
  FROM search_documents d, websearch_to_tsquery('english', $1) AS query
  WHERE d."organizationId" = $2 AND d.document @@ query
  ORDER BY rank DESC, d."createdAt" DESC, d."entityId" DESC LIMIT 25`;

const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 100);
const GOAL_MS = 50;

// A fixed vocabulary with a skewed (Zipf-like) draw, so some words are in most
// documents (the expensive case: thousands of matches to rank).
const WORDS = (
  'login checkout payment invoice report dashboard export import upload download search filter sort ' +
  'timeout crash error warning slow fast broken missing duplicate wrong label button form field modal ' +
  'page screen mobile desktop browser android ios api webhook token session password email notification ' +
  'calendar schedule release deploy staging production build pipeline test coverage flaky migration ' +
  'database index query cache memory cpu latency throughput queue worker retry backoff signature ' +
  'customer client invoice tax currency refund subscription plan trial billing usage limit quota ' +
  'permission role admin manager developer tester owner member project wiki agreement snapshot audit ' +
  'kestrel osprey heron pelican albatross puffin gannet cormorant falcon condor harrier merlin'
).split(' ');

function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = rng(42);
const word = () => WORDS[Math.floor(WORDS.length * rand() ** 2.5)];
// Plus a long tail, as real text has: 5,625 made-up words ("bakex"), each in a dozen or so documents.
const SYLLABLES = 'bcdfghklmnprstv'.split('').flatMap((c) => 'aeiou'.split('').map((v) => c + v));
const tail = (i: number) =>
  `${SYLLABLES[i % SYLLABLES.length]}${SYLLABLES[Math.floor(i / SYLLABLES.length) % SYLLABLES.length]}x`;
const TAIL_SIZE = SYLLABLES.length ** 2;
const text = (n: number) => [...Array.from({ length: n }, word), tail(Math.floor(rand() * TAIL_SIZE))].join(' ');

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function main() {
  const c = await startTestCluster({ withoutDelivery: true });
  const db = new pg.Client({ connectionString: c.databaseUrl });
  try {
    const org = await c.seedOrg('Bench Org');
    const noise = await c.seedOrg('Noise Org');
    await db.connect();
    await db.query('SET search_path TO core, public');

    const projects = [org.projectId];
    for (let i = 1; i < 5; i++) {
      const res = await c.api(org.key, 'POST', '/projects', { name: `Bench project ${i} ${text(2)}`, description: text(12) });
      projects.push(requiredField(res.body, 'id'));
    }

    const started = Date.now();
    const seed = async (table: string, orgId: string, count: number, row: (i: number) => unknown[], columns: string) => {
      for (let done = 0; done < count; done += 1000) {
        const n = Math.min(1000, count - done);
        const values: unknown[] = [];
        const tuples: string[] = [];
        for (let i = 0; i < n; i++) {
          const r = [orgId, ...row(done + i)];
          tuples.push(`(${r.map((_, j) => `$${values.length + j + 1}`).join(', ')})`);
          values.push(...r);
        }
        await db.query(`INSERT INTO ${table} (${columns}) VALUES ${tuples.join(', ')}`, values);
      }
    };
    await seed(
      'entries',
      org.orgId,
      ENTRIES,
      (i) => [projects[i % projects.length], 'bug_report', text(6), text(40)],
      '"organizationId", "projectId", type, title, description',
    );
    await seed(
      'entries',
      noise.orgId,
      2000,
      () => [noise.projectId, 'feedback', text(6), text(40)],
      '"organizationId", "projectId", type, title, description',
    );
    await seed(
      'releases',
      org.orgId,
      500,
      (i) => [projects[i % projects.length], text(3), text(20), new Date(), new Date()],
      '"organizationId", "projectId", name, description, "startDate", "endDate"',
    );
    await seed(
      'wiki_pages',
      org.orgId,
      1000,
      (i) => [projects[i % projects.length], text(4), text(300)],
      '"organizationId", "projectId", title, content',
    );
    await db.query('ANALYZE');
    const {
      rows: [{ n: docs }],
    } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM search_documents');
    console.log(
      `seeded ${ENTRIES} entries (+2000 in another organization, 500 releases, 1000 wiki pages): ${docs} search documents in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );

    const scopedKey = (await c.admin.createKey({ user: org.adminId, scope: 'project', project: projects[1] })).key;
    const queries: { name: string; q: string; key: string }[] = [
      { name: 'most common word', q: WORDS[0], key: org.key },
      { name: 'common word', q: WORDS[3], key: org.key },
      { name: 'less common word', q: WORDS[20], key: org.key },
      { name: 'least common word', q: WORDS[WORDS.length - 3], key: org.key },
      { name: 'long-tail word', q: tail(1234), key: org.key },
      { name: 'two words (AND)', q: `${WORDS[1]} ${WORDS[6]}`, key: org.key },
      { name: 'phrase', q: `"${WORDS[0]} ${WORDS[1]}"`, key: org.key },
      { name: 'or + exclusion', q: `${WORDS[2]} or ${WORDS[5]} -${WORDS[0]}`, key: org.key },
      { name: 'no match', q: 'zzzyzzx', key: org.key },
      { name: 'project key, most common word', q: WORDS[0], key: scopedKey },
    ];

    const all: number[] = [];
    console.log(`\n${ROUNDS} sequential requests per query, end to end (HTTP -> gateway -> Connect -> core -> Postgres):\n`);
    console.log(
      'query [results]'.padEnd(36),
      'matches'.padStart(8),
      'p50 ms'.padStart(8),
      'p95 ms'.padStart(8),
      'p99 ms'.padStart(8),
      'max ms'.padStart(8),
      'SQL p50'.padStart(8),
      'SQL p95'.padStart(8),
    );
    for (const { name, q, key } of queries) {
      const url = `${c.baseUrl}/search?q=${encodeURIComponent(q)}`;
      const headers = { authorization: `Bearer ${key}` };
      for (let i = 0; i < 10; i++) await (await fetch(url, { headers })).arrayBuffer(); // warm up
      const times: number[] = [];
      let results = 0;
      for (let i = 0; i < ROUNDS; i++) {
        const t0 = process.hrtime.bigint();
        const res = await fetch(url, { headers });
        const body = (await res.json()) as { data: unknown[] };
        times.push(Number(process.hrtime.bigint() - t0) / 1e6);
        if (res.status !== 200) throw new Error(`search answered ${res.status}: ${JSON.stringify(body)}`);
        results = body.data.length;
      }
      const {
        rows: [{ n: matches }],
      } = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM search_documents WHERE "organizationId" = $1 AND document @@ websearch_to_tsquery('english', $2)`,
        [org.orgId, q],
      );
      // The query alone, as the core runs it (organization filter only), without the HTTP/RPC hops.
      const sqlTimes: number[] = [];
      for (let i = 0; i < 30; i++) {
        const t0 = process.hrtime.bigint();
        await db.query(SEARCH_SQL, [q, org.orgId]);
        sqlTimes.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
      sqlTimes.sort((a, b) => a - b);
      times.sort((a, b) => a - b);
      all.push(...times);
      console.log(
        `${name} [${results}]`.padEnd(36),
        String(matches).padStart(8),
        ...[50, 95, 99].map((p) => percentile(times, p).toFixed(1).padStart(8)),
        times[times.length - 1].toFixed(1).padStart(8),
        ...[50, 95].map((p) => percentile(sqlTimes, p).toFixed(1).padStart(8)),
      );
    }
    all.sort((a, b) => a - b);
    const p50 = percentile(all, 50);
    const p95 = percentile(all, 95);
    console.log(
      `\noverall: p50 ${p50.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, p99 ${percentile(all, 99).toFixed(1)} ms over ${all.length} requests (goal: under ${GOAL_MS} ms)`,
    );

    for (const q of [WORDS[0], tail(1234)]) {
      const plan = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, COSTS OFF) ${SEARCH_SQL}`, [q, org.orgId]);
      console.log(`\nplan for "${q}":\n${plan.rows.map((r) => `  ${r['QUERY PLAN']}`).join('\n')}`);
    }
    console.log(
      `\nload average at the end: ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')} (${os.cpus().length} cores)`,
    );
    process.exitCode = p95 < GOAL_MS ? 0 : 1;
  } finally {
    await db.end().catch(() => {});
    await c.stop();
  }
}

await main();
