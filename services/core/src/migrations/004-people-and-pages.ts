import type { Knex, Migration } from '@cluster/db';

/** Tables of the full-text search index and how each fills its documents (see docs/decisions-people.md). */
const SEARCH_SOURCES = [
  // [table, entityType, projectId column, title column, body columns]
  ['projects', 'project', 'id', 'name', ['description']],
  ['entries', 'entry', 'projectId', 'title', ['description']],
  ['releases', 'release', 'projectId', 'name', ['description', 'version']],
  ['wiki_pages', 'wiki_page', 'projectId', 'title', ['content']],
] as const;

/**
 * Invitations, wiki pages, agreements, report snapshots, and the full-text search
 * index over projects, entries, releases and wiki pages.
 *
 * Search lives in one `search_documents` table (a weighted tsvector per record,
 * GIN-indexed) kept in step by row triggers in the writing transaction, rather than
 * in generated columns on the source tables: those tables are read with `select *`
 * / `returning('*')` by their presenters, which would leak the vector into answers.
 */
export const peopleAndPages: Migration = {
  name: '004-people-and-pages',
  async up(knex: Knex) {
    await knex.schema.createTable('invites', (t) => {
      t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
      t.uuid('organizationId').notNullable().references('id').inTable('organizations').onDelete('CASCADE');
      t.uuid('userId').notNullable().references('id').inTable('users').onDelete('CASCADE');
      t.text('email').notNullable();
      // The outbound message: recorded here (no SMTP in this system); a mailer would pick up 'queued'.
      t.text('channel').notNullable().defaultTo('email');
      t.text('status').notNullable().defaultTo('sent');
      t.uuid('invitedByUserId');
      t.uuid('apiKeyId');
      t.timestamp('sentAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('createdAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.index(['organizationId', 'createdAt', 'id']);
      t.index(['userId']);
    });

    await knex.schema.createTable('wiki_pages', (t) => {
      t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
      t.uuid('projectId').notNullable().references('id').inTable('projects').onDelete('CASCADE');
      t.uuid('organizationId').notNullable();
      t.text('title').notNullable();
      t.text('content');
      t.uuid('creatorId');
      t.timestamp('createdAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('updatedAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.index(['projectId', 'createdAt', 'id']);
    });

    await knex.schema.createTable('agreements', (t) => {
      t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
      t.uuid('organizationId').notNullable().references('id').inTable('organizations').onDelete('CASCADE');
      t.uuid('projectId').references('id').inTable('projects').onDelete('CASCADE');
      // The project's client at creation (agreement.signed carries it).
      t.text('clientId');
      t.text('title').notNullable();
      t.text('status').notNullable().defaultTo('pending_signature');
      t.timestamp('signedAt', { useTz: true });
      t.timestamp('createdAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('updatedAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.index(['projectId', 'createdAt', 'id']);
    });

    await knex.schema.createTable('snapshots', (t) => {
      t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
      t.uuid('organizationId').notNullable().references('id').inTable('organizations').onDelete('CASCADE');
      t.uuid('projectId').references('id').inTable('projects').onDelete('CASCADE');
      t.text('scopeType').notNullable();
      t.uuid('scopeId').notNullable();
      t.text('reportType').notNullable();
      t.text('status').notNullable().defaultTo('ready');
      t.text('narrativeSource');
      t.text('summary');
      t.timestamp('createdAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.index(['projectId', 'createdAt', 'id']);
    });

    await knex.schema.createTable('search_documents', (t) => {
      t.text('entityType').notNullable();
      t.uuid('entityId').notNullable();
      t.uuid('organizationId').notNullable();
      t.uuid('projectId').notNullable().references('id').inTable('projects').onDelete('CASCADE');
      t.text('title').notNullable();
      t.specificType('document', 'tsvector').notNullable();
      t.timestamp('createdAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.primary(['entityType', 'entityId']);
      t.index(['organizationId']);
      t.index(['projectId']);
    });
    await knex.raw('CREATE INDEX search_documents_document ON search_documents USING gin (document)');

    // One trigger function for every source table: arguments are the entity type,
    // the project id column, the title column (weight A) and the body columns (weight B).
    await knex.raw(`
      CREATE FUNCTION search_documents_sync() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
      DECLARE
        r jsonb;
        body text := '';
        i int;
      BEGIN
        IF TG_OP = 'DELETE' THEN
          DELETE FROM search_documents WHERE "entityType" = TG_ARGV[0] AND "entityId" = OLD.id;
          RETURN OLD;
        END IF;
        r := to_jsonb(NEW);
        FOR i IN 3 .. TG_NARGS - 1 LOOP
          body := body || ' ' || coalesce(r ->> TG_ARGV[i], '');
        END LOOP;
        INSERT INTO search_documents ("entityType", "entityId", "organizationId", "projectId", title, document, "createdAt")
        VALUES (
          TG_ARGV[0], NEW.id, (r ->> 'organizationId')::uuid, (r ->> TG_ARGV[1])::uuid, coalesce(r ->> TG_ARGV[2], ''),
          setweight(to_tsvector('english', coalesce(r ->> TG_ARGV[2], '')), 'A') || setweight(to_tsvector('english', body), 'B'),
          coalesce((r ->> 'createdAt')::timestamptz, now())
        )
        ON CONFLICT ("entityType", "entityId") DO UPDATE
          SET title = EXCLUDED.title, document = EXCLUDED.document, "projectId" = EXCLUDED."projectId";
        RETURN NEW;
      END
      $fn$`);

    for (const [table, entityType, projectCol, titleCol, bodyCols] of SEARCH_SOURCES) {
      const watched = [titleCol, ...bodyCols, ...(projectCol === 'id' ? [] : [projectCol])].map((c) => `"${c}"`).join(', ');
      const args = [entityType, projectCol, titleCol, ...bodyCols].map((a) => `'${a}'`).join(', ');
      await knex.raw(`
        CREATE TRIGGER ${table}_search AFTER INSERT OR DELETE OR UPDATE OF ${watched} ON ${table}
        FOR EACH ROW EXECUTE FUNCTION search_documents_sync(${args})`);
      // Index what is already there.
      const body = bodyCols.map((c) => `coalesce("${c}", '')`).join(` || ' ' || `);
      await knex.raw(`
        INSERT INTO search_documents ("entityType", "entityId", "organizationId", "projectId", title, document, "createdAt")
        SELECT '${entityType}', id, "organizationId", "${projectCol}", "${titleCol}",
          setweight(to_tsvector('english', coalesce("${titleCol}", '')), 'A') || setweight(to_tsvector('english', ${body}), 'B'),
          "createdAt"
        FROM ${table}`);
    }
  },
};
