// Entry point of the migration Job (k8s/base/migrate-job.yaml): migrates the evidence schema and exits.
import { runMigrations } from '@cluster/db';
import { ConfigError, readDevelopment, readMigrationConfig } from '@cluster/platform';
import { migrations } from './migrations/index.ts';

// DATABASE_URL: the owner role's; DATABASE_RUNTIME_ROLE: the service's own role, granted its rights here.
const database = readMigrationConfig(readDevelopment());
if (!database.databaseUrl) throw new ConfigError('DATABASE_URL is required');
await runMigrations('evidence', migrations, database);
