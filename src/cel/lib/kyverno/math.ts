import type { CelLibrary, LibraryRegistrar } from '../../library.js';

/**
 * Go's math.Pow(10, y) for an integral y, step by step as Go computes it (repeated squaring of 10's
 * mantissa, powers of two kept apart, one division at the end for y < 0). JavaScript's Math.pow rounds
 * differently for some exponents (Math.pow(10, -5) is 0.000009999999999999999, Go's 1e-5), which
 * changes what math.round returns.
 */
function goPow10(y: number): number {
  if (y === 0) return 1;
  if (y === 1) return 10;
  const abs = Math.abs(y);
  // Go: a |y| of 2^63 or more overflows (y > 0) or underflows to 0 (y < 0).
  if (abs >= 2 ** 63) return y > 0 ? Infinity : 0;
  let a1 = 1;
  let ae = 0;
  // Frexp(10) = 0.625 × 2^4.
  let x1 = 0.625;
  let xe = 4;
  for (let i = BigInt(abs); i !== 0n; i >>= 1n) {
    if (xe < -(1 << 12) || 1 << 12 < xe) {
      // Go's catastrophic overflow: Ldexp handles it.
      ae += xe;
      break;
    }
    if ((i & 1n) === 1n) {
      a1 *= x1;
      ae += xe;
    }
    x1 *= x1;
    xe *= 2;
    if (x1 < 0.5) {
      x1 += x1;
      xe--;
    }
  }
  if (y < 0) {
    a1 = 1 / a1;
    ae = -ae;
  }
  return ldexp(a1, ae);
}

/** a × 2^e with a single rounding, as Go's Ldexp (2^e alone may not be a finite double). */
function ldexp(a: number, e: number): number {
  if (e > 2100) return a * Infinity;
  if (e < -2200) return a * 0;
  const half = Math.trunc(e / 2);
  // The first product stays a normal double (|e/2| < 1100 and a in [0.5, 2]), so only the second rounds.
  return a * 2 ** half * 2 ** (e - half);
}

/** Kyverno's math library: `math.round(double, int) -> double`, Go's math.Round(v·10^p)/10^p. */
function round(v: number, precision: bigint): number {
  const shift = goPow10(Number(precision));
  const x = v * shift;
  // Go's math.Round rounds half away from zero; JS Math.round rounds half up.
  const r = x < 0 ? -Math.round(-x) : Math.round(x);
  return r / shift;
}

export const mathLibrary: CelLibrary = {
  name: 'kyverno.math',
  register(r: LibraryRegistrar) {
    r.registerFunction('math.round(double, int): double', round);
  },
};
