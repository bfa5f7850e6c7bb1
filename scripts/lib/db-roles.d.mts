// Types of db-roles.mjs for the TypeScript callers (test/db-roles.test.ts).
export type DatabaseService = 'core' | 'delivery' | 'evidence';
export type DatabaseRoles = { owner: string } & Record<DatabaseService, string>;
export type RolePasswords = Record<keyof DatabaseRoles, string>;
export declare const DATABASE_SERVICES: DatabaseService[];
export declare function databaseRoleNames(prefix?: string): DatabaseRoles;
export declare function rolePasswords(roles: DatabaseRoles): RolePasswords;
export declare function roleSetupSql(opts: { database: string; roles: DatabaseRoles; passwords: RolePasswords }): string;
export declare function roleTeardownSql(opts: { roles: DatabaseRoles }): string;
export declare function roleUrl(databaseUrl: string, name: string, password: string): string;
export declare const LOCAL_ROLES_DATABASE: string;
export declare function localRoles(): { roles: DatabaseRoles; passwords: RolePasswords };
export declare function ensureLocalRoles(adminUrl: string): Promise<Record<keyof DatabaseRoles, string>>;
