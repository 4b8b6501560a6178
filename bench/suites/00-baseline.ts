import { formatNs, measure, table } from '../lib.js';
import { pod4k } from '../fixtures.js';

/** The yardstick every other figure is compared with: parse + stringify of a 4 KB Pod review. */
export async function run(): Promise<void> {
  const text = JSON.stringify(pod4k());
  const stats = measure(() => JSON.stringify(JSON.parse(text)));
  table('baseline: JSON.parse + JSON.stringify of a 4 KB Pod AdmissionReview', [
    { bytes: text.length, median: formatNs(stats.median), p99: formatNs(stats.p99) },
  ]);
}
