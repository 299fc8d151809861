import { describe, expect, it } from "vitest";
import { backoffDelay } from "./backoff.ts";

const policy = { baseMs: 500, maxMs: 30_000 };

describe("backoffDelay", () => {
  it("doubles its ceiling per attempt and never exceeds the cap", () => {
    const ceilings = [0, 1, 2, 3, 4, 5, 6, 7, 20, 1_000].map((a) => backoffDelay(a, policy, () => 1));
    expect(ceilings).toEqual([500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000, 30_000]);
  });

  it("draws from the upper half of the ceiling (jitter), so restarted extensions spread out", () => {
    for (const attempt of [0, 3, 10]) {
      const ceiling = backoffDelay(attempt, policy, () => 1);
      expect(backoffDelay(attempt, policy, () => 0)).toBe(ceiling / 2);
      let seed = 7;
      const random = () => (seed = (seed * 16_807) % 2_147_483_647) / 2_147_483_647;
      const delays = Array.from({ length: 200 }, () => backoffDelay(attempt, policy, random));
      expect(Math.min(...delays)).toBeGreaterThanOrEqual(ceiling / 2);
      expect(Math.max(...delays)).toBeLessThanOrEqual(ceiling);
      expect(new Set(delays).size).toBeGreaterThan(50);
    }
  });

  it("tolerates nonsense inputs", () => {
    expect(backoffDelay(-3, policy, () => 2)).toBe(500);
    expect(backoffDelay(Number.NaN, policy, () => 0.5)).toBeLessThanOrEqual(500);
  });
});
