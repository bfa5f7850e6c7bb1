import { isUuid, type Knex } from '@cluster/db';

/** An organization row (every column). */
export interface OrganizationRow {
  id: string;
  name: string;
  apiEnabled: boolean;
  currency: string;
  createdAt: Date;
}

/**
 * Organizations in Postgres. Only the admin CLI writes them (there is no API for
 * organizations); features read an organization's settings (its currency) here.
 */
export interface OrganizationStore {
  /** A new organization with the defaults (API enabled, USD). */
  insert(name: string): Promise<OrganizationRow>;
  /** An organization by id, or undefined. Non-UUID ids find nothing. */
  find(id: string): Promise<OrganizationRow | undefined>;
  /** The oldest organization of that name, or undefined (the admin CLI's demo organization). */
  findByName(name: string): Promise<OrganizationRow | undefined>;
  /** Turns API access on or off; undefined when there is no such organization. */
  setApiEnabled(id: string, enabled: boolean): Promise<OrganizationRow | undefined>;
}

/** The knex implementation of OrganizationStore. */
export function createOrganizationStore(db: Knex): OrganizationStore {
  return {
    async insert(name) {
      const [row] = await db<OrganizationRow>('organizations').insert({ name }).returning('*');
      return row;
    },
    async find(id) {
      if (!isUuid(id)) return undefined;
      return db<OrganizationRow>('organizations').where({ id }).first();
    },
    findByName(name) {
      return db<OrganizationRow>('organizations').where({ name }).orderBy('createdAt').first();
    },
    async setApiEnabled(id, enabled) {
      if (!isUuid(id)) return undefined;
      const [row] = await db<OrganizationRow>('organizations').where({ id }).update({ apiEnabled: enabled }).returning('*');
      return row;
    },
  };
}
