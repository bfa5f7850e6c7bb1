import type { Knex, Migration } from '@cluster/db';

/** Characters of a record's title that search indexes (weight A). */
export const SEARCH_TITLE_CHARS = 1_000;
/** Characters of a record's body (description, content, ...) that search indexes (weight B). */
export const SEARCH_BODY_CHARS = 100_000;

/**
 * Search indexes the first SEARCH_TITLE_CHARS of a title and the first SEARCH_BODY_CHARS of a body. A tsvector
 * holds at most 1 MB, and the vector of 800 KB of distinct words is larger: writing such an entry or wiki page
 * failed with a 500. 100,000 characters of the worst text (one-character words, each a distinct 4-byte
 * character) make a vector of about 600 KB. The trigger function of 004 is replaced; its arguments are unchanged.
 */
export const searchDocumentBounds: Migration = {
  name: '007-search-document-bounds',
  async up(knex: Knex) {
    await knex.raw(`
      CREATE OR REPLACE FUNCTION search_documents_sync() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
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
          setweight(to_tsvector('english', left(coalesce(r ->> TG_ARGV[2], ''), ${SEARCH_TITLE_CHARS})), 'A')
            || setweight(to_tsvector('english', left(body, ${SEARCH_BODY_CHARS})), 'B'),
          coalesce((r ->> 'createdAt')::timestamptz, now())
        )
        ON CONFLICT ("entityType", "entityId") DO UPDATE
          SET title = EXCLUDED.title, document = EXCLUDED.document, "projectId" = EXCLUDED."projectId";
        RETURN NEW;
      END
      $fn$`);
  },
};
