// Entry point of the migration Job (k8s/base/migrate-job.yaml): migrates the delivery schema and exits.
// The Deployments then start with MIGRATE_ON_START=false and only check the schema (docs/deploy.md).
import { runMigrations } from '@cluster/db';
import { ConfigError, readDatabaseConfig } from '@cluster/platform';
import { migrations } from './migrations/index.ts';

const database = readDatabaseConfig();
if (!database.databaseUrl) throw new ConfigError('DATABASE_URL is required');
await runMigrations('delivery', migrations, database);
