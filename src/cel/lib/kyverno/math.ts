import type { CelLibrary, LibraryRegistrar } from '../../library.js';

/** Kyverno's math library: `math.round(double, int) -> double`, Go's math.Round(v·10^p)/10^p. */
function round(v: number, precision: bigint): number {
  const shift = Math.pow(10, Number(precision));
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
