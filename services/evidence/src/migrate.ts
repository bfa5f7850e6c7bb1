// Entry point of the migration Job (k8s/base/migrate-job.yaml): migrates the evidence schema and exits.
import { runMigrations } from '@cluster/db';
import { ConfigError, readDatabaseConfig } from '@cluster/platform';
import { migrations } from './migrations/index.ts';

const database = readDatabaseConfig();
if (!database.databaseUrl) throw new ConfigError('DATABASE_URL is required');
await runMigrations('evidence', migrations, database);
