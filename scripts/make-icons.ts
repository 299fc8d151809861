// `npx tsx scripts/make-icons.ts`: renders the extension icon (extension/icons/icon.svg) in Debian's Chromium at
// each size the manifest names and writes extension/public/icons/icon-<size>.png. The PNGs are committed build
// inputs (the build copies them, it does not render them); run this again after changing the SVG.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { chromium } from "playwright-core";

const ROOT = path.resolve(import.meta.dirname, "..");
const SOURCE = path.join(ROOT, "extension/icons/icon.svg");
const OUT_DIR = path.join(ROOT, "extension/public/icons");
/** The sizes `icons` and `action.default_icon` name in manifests/extension/manifest.json. */
const ICON_SIZES = [16, 32, 48, 128] as const;

async function main(): Promise<void> {
  const svg = await readFile(SOURCE);
  const src = `data:image/svg+xml;base64,${svg.toString("base64")}`;
  await mkdir(OUT_DIR, { recursive: true });
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium" });
  try {
    for (const size of ICON_SIZES) {
      // One device pixel per CSS pixel, so the vector is rasterised at the target size (crisper than scaling a
      // large bitmap down); the background stays transparent outside the rounded square.
      const page = await browser.newPage({ viewport: { width: size, height: size }, deviceScaleFactor: 1 });
      await page.setContent(
        `<body style="margin:0"><img src="${src}" width="${size}" height="${size}" style="display:block"></body>`,
      );
      await page.evaluate(() => document.images[0]!.decode());
      const png = await page.screenshot({ omitBackground: true, type: "png" });
      await page.close();
      const file = path.join(OUT_DIR, `icon-${size}.png`);
      await writeFile(file, png);
      process.stdout.write(`${path.relative(ROOT, file)} (${png.length} bytes)\n`);
    }
  } finally {
    await browser.close();
  }
}

await main();
