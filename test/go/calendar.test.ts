/** The Gregorian day arithmetic shared by CEL timestamps and Kyverno's time functions (src/go/calendar.ts). */
import { describe, expect, it } from 'vitest';
import { civilFromDays, daysFromCivil, daysInMonth, isLeapYear } from '../../src/go/index.js';

describe('calendar', () => {
  it('agrees with Date.UTC on every day from year 1 to 9999 sampled every 97 days, both ways', () => {
    const first = daysFromCivil(1, 1, 1);
    const last = daysFromCivil(9999, 12, 31);
    for (let days = first; days <= last; days += 97) {
      const date = new Date(days * 86_400_000);
      const civil = civilFromDays(days);
      expect(civil).toEqual({ year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() });
      expect(daysFromCivil(civil.year, civil.month, civil.day)).toBe(days);
    }
    expect(daysFromCivil(1970, 1, 1)).toBe(0);
    expect(daysFromCivil(1969, 12, 31)).toBe(-1);
    expect(daysFromCivil(1, 1, 1)).toBe(-719162);
  });

  it('knows the Gregorian leap years and month lengths', () => {
    expect([1900, 2000, 2023, 2024, 2100].map(isLeapYear)).toEqual([false, true, false, true, false]);
    expect(daysInMonth(2024, 2)).toBe(29);
    expect(daysInMonth(1900, 2)).toBe(28);
    expect(daysInMonth(2023, 12)).toBe(31);
    expect(daysInMonth(2023, 4)).toBe(30);
  });
});
