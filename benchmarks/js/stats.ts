/** Median, p90 and max of a list of milliseconds, rounded to 0.1 ms. */
export function summary(ms: number[]): { n: number; p50: number; p90: number; max: number } {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  const round = (x: number): number => Math.round(x * 10) / 10;
  return { n: ms.length, p50: round(at(0.5)), p90: round(at(0.9)), max: round(sorted[sorted.length - 1]) };
}
