// A browser port that floods the host with invalid messages grows logs/host.log by a bounded amount: the real host
// (spawned, real framing) writes a few lines per kind of refusal and, at exit, how many it left out.
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { encodeFrame } from "../../native-host/src/bridge/native-framing.ts";
import { removeHome, tempHome } from "./host-harness.ts";
import { ScriptedExtension } from "./scripted-extension.ts";

const FRAMES = 20_000;

describe("a flood of invalid native messages", () => {
  const homes: string[] = [];
  afterEach(() => homes.splice(0).forEach(removeHome));

  it(
    `adds only a few KiB to host.log for ${FRAMES} invalid frames and counts what it left out`,
    {
      timeout: 90_000,
    },
    async () => {
      const home = tempHome();
      homes.push(home);
      const log = join(home, "logs", "host.log");
      const ext = ScriptedExtension.spawn({ home });
      await ext.hello();
      const before = statSync(log).size;

      const frames: Buffer[] = [];
      for (let i = 0; i < FRAMES; i++) {
        // Well-formed JSON that is no message of ours (each one different), and now and then bytes that are not JSON.
        if (i % 10 === 9)
          frames.push(Buffer.concat([Buffer.from([5, 0, 0, 0]), Buffer.from(`{bad${i % 10}`)]));
        else frames.push(encodeFrame({ kind: i % 2 ? "command.ack" : `bogus-${i}`, n: i, workerId: i }));
      }
      ext.writeRaw(Buffer.concat(frames));
      // Messages of a connection are handled in order: once this answers, every frame before it has been dealt with.
      await ext.ui("run_list", {});
      ext.closeStdin();
      expect(await ext.exited).toEqual({ code: 0, signal: null });

      const grown = statSync(log).size - before;
      // Unlimited, this was one line per frame: about 2 MB.
      expect(grown).toBeLessThan(16 * 1024);
      const text = readFileSync(log, "utf8");
      const suppressed = [
        ...text.matchAll(/suppressed (\d+) similar lines .*: browser: dropped an invalid message$/gm),
      ];
      expect(suppressed).toHaveLength(1);
      expect(Number(suppressed[0]![1])).toBeGreaterThan(FRAMES * 0.8);
      // The frames that were not JSON at all: 2000, of which 10 were written.
      expect(text).toMatch(/suppressed 1990 similar lines .*: browser: bad frame ##$/m);
      expect(existsSync(`${log}.1`)).toBe(false);
    },
  );
});
