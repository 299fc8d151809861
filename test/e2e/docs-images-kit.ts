// Pieces of the documentation pictures (docs/images/*.png, `npm run docs:images`): where they go, the look given to
// the fake chatgpt.com so the overlay is seen on a page shaped like ChatGPT's, the overlay's on-screen box, and the
// check that a written PNG is a real picture of the expected size.
import { mkdirSync, mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { expect } from "vitest";
import { ROOT } from "./harness.ts";
import type { OverlayProbe } from "./ui-kit.ts";

/** Set to a directory (relative to the repository root, or absolute) to write the pictures there. */
export const DOCS_IMAGES_ENV = "ORCHESTRATOR_DOCS_IMAGES";

/** Where the pictures go: `$ORCHESTRATOR_DOCS_IMAGES`, or a fresh temp dir (`temp` says which, for cleanup). */
export function imagesDir(): { dir: string; temp: boolean } {
  const wanted = process.env[DOCS_IMAGES_ENV];
  if (wanted) {
    const dir = path.resolve(ROOT, wanted);
    mkdirSync(dir, { recursive: true });
    return { dir, temp: false };
  }
  return { dir: mkdtempSync(path.join(tmpdir(), "orch-docs-images-")), temp: true };
}

/**
 * A look for the fake page, for the pictures only: the fake is unstyled on purpose (its markup mimics chatgpt.com's,
 * not its looks). A header, a history sidebar, a centred thread with user bubbles (long orchestrator prompts clamped
 * to a few lines, as the real page folds long messages) and a rounded composer at the bottom. The test's decoy
 * controls (a read-aloud Stop, an aria-hidden Stop) are hidden; nothing the adapter uses is.
 */
const CHAT_LOOK = `
html, body { background: #fff; color: #0d0d0d; font: 15px/1.55 "Liberation Sans", Arial, sans-serif; }
body::before { content: "ChatGPT"; position: fixed; top: 0; left: 260px; right: 0; height: 52px; padding: 0 20px;
  display: flex; align-items: center; font-size: 18px; font-weight: 600; background: #fff; z-index: 5;
  border-bottom: 1px solid #ececec; }
#history { position: fixed; inset: 0 auto 0 0; width: 260px; box-sizing: border-box; padding: 64px 10px 10px;
  background: #f9f9f9; border-right: 1px solid #ececec; font-size: 14px; overflow: hidden; }
#history::before { content: "Chats"; display: block; padding: 0 10px 6px; color: #8f8f8f; font-size: 13px; }
#history a { display: block; padding: 7px 10px; border-radius: 8px; color: #0d0d0d; text-decoration: none;
  white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
#main { margin-left: 260px; }
#thread { max-width: 760px; margin: 0 auto; padding: 76px 24px 80vh; box-sizing: border-box; }
#thread section, #thread [data-turn-key] { margin: 0 0 22px; }
[data-message-author-role="user"], [data-user-message-bubble] { margin-left: auto; width: fit-content;
  max-width: 78%; background: #f4f4f4; border-radius: 18px; padding: 10px 16px; }
[data-message-author-role="user"] .whitespace-pre-wrap, [data-user-message-bubble] .whitespace-pre-wrap {
  display: -webkit-box; -webkit-line-clamp: 4; -webkit-box-orient: vertical; overflow: hidden; }
.markdown, [data-markdown-text-style] { white-space: pre-wrap; }
#thread button { border: 0; background: transparent; min-width: 0; min-height: 0; padding: 0; }
#thread-bottom-container { position: fixed; left: 260px; right: 0; bottom: 0; background: #fff; padding: 10px 0 26px; }
#thread-bottom-container form { max-width: 712px; margin: 0 auto; display: flex; align-items: center; gap: 8px;
  border: 1px solid #dcdcdc; border-radius: 26px; padding: 8px 10px 8px 18px; box-shadow: 0 2px 10px rgba(0,0,0,.06); }
#thread-bottom-container .ProseMirror { flex: 1; border: 0; outline: none; padding: 6px 0; min-height: 24px; }
#thread-bottom-container .ProseMirror p { margin: 0; }
#thread-bottom-container .placeholder::before { content: attr(data-placeholder); color: #8f8f8f; }
#thread-bottom-container button { width: 36px; height: 36px; border: 0; border-radius: 50%; background: #0d0d0d;
  color: #fff; }
#thread-bottom-container button:disabled { background: #d7d7d7; }
[data-testid="read-aloud-stop"], body > [aria-hidden="true"] { display: none; }
`;

/** Gives the fake page its look (kept while the page is not reloaded: the thread's URL changes by pushState only). */
export async function dressChatPage(page: Page): Promise<void> {
  await page.addStyleTag({ content: CHAT_LOOK });
}

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The box the overlay's parts take on screen (badge and open drawer), from inside its closed shadow root. */
export async function overlayBox(probe: OverlayProbe): Promise<Box> {
  const box = await probe.onShadow<Box | null>(
    `function () {
      let l = Infinity, t = Infinity, r = -Infinity, b = -Infinity;
      for (const el of this.querySelectorAll("*")) {
        const rect = el.getBoundingClientRect();
        if (rect.width === 0 || rect.height === 0) continue;
        l = Math.min(l, rect.left); t = Math.min(t, rect.top); r = Math.max(r, rect.right); b = Math.max(b, rect.bottom);
      }
      return r > l ? { x: l, y: t, width: r - l, height: b - t } : null;
    }`,
  );
  if (!box) throw new Error("the overlay has nothing on screen");
  return box;
}

/** A clip around `box` with `margin` pixels of page on each side, kept inside the viewport. */
export function around(
  box: Box,
  margin: { left: number; top: number; right: number; bottom: number },
  viewport: {
    width: number;
    height: number;
  },
): Box {
  const x = Math.max(0, Math.floor(box.x - margin.left));
  const y = Math.max(0, Math.floor(box.y - margin.top));
  const right = Math.min(viewport.width, Math.ceil(box.x + box.width + margin.right));
  const bottom = Math.min(viewport.height, Math.ceil(box.y + box.height + margin.bottom));
  return { x, y, width: right - x, height: bottom - y };
}

/** The width and height a PNG file declares (its IHDR chunk), after checking the signature. */
function pngSize(file: string): { width: number; height: number } {
  const bytes = readFileSync(file);
  expect(bytes.subarray(0, 8).toString("hex"), `${file} is a PNG`).toBe("89504e470d0a1a0a");
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/**
 * A written picture is a real one: a PNG of the expected width, at least `minHeight` high, and more bytes than a blank
 * or nearly blank image of that size compresses to (a view that failed to draw is a few kilobytes of white).
 */
export function expectPicture(file: string, width: number, minHeight: number): number {
  const size = pngSize(file);
  expect(size.width, `${path.basename(file)} width`).toBe(width);
  expect(size.height, `${path.basename(file)} height`).toBeGreaterThanOrEqual(minHeight);
  const bytes = statSync(file).size;
  expect(bytes, `${path.basename(file)} bytes`).toBeGreaterThan(8_000);
  return bytes;
}
