import { describe, expect, it } from 'vitest';
import { internalized } from '../../src/json/index.js';

describe('internalized', () => {
  it('gives back the same text, for keys an object treats specially too', () => {
    const long = 'request.object.metadata.labels.team';
    for (const text of ['', 'name', long.slice(1), `\u0000${long}`, '__proto__', 'constructor', '0', '4294967295', '-1', '01', 'é\u{1F600}']) {
      expect(internalized(text)).toBe(text);
    }
  });
});
