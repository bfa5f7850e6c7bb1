/**
 * Times `run` `runs` times after one untimed run, with `after` (untimed) after each: the sorted durations in ms.
 * The delivery log's benches (delivery-partitions.ts, delivery-claim-record.ts).
 */
export async function timedRuns(runs: number, run: () => Promise<unknown>, after?: () => Promise<unknown>): Promise<number[]> {
  await run();
  await after?.();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint();
    await run();
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
    await after?.();
  }
  return times.sort((a, b) => a - b);
}
