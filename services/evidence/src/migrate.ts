// Entry point of the migration Job (k8s/base/migrate-job.yaml): migrates the evidence schema and exits.
import { runMigrations } from '@cluster/db';
import { str } from '@cluster/platform';
import { migrations } from './migrations/index.ts';

await runMigrations('evidence', migrations, str('DATABASE_URL'));
