// Copies the minified cytoscape build and its licence into ../static/vendor/ (committed, so the browser page
// works offline and without npm at run time). Run after `npm ci`.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const pkgDir = join(here, "node_modules", "cytoscape");
const outDir = join(here, "..", "static", "vendor");
mkdirSync(outDir, { recursive: true });

const version = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")).version;
const files = [
  ["dist/cytoscape.min.js", "cytoscape.min.js"],
  ["LICENSE", "cytoscape.LICENSE.txt"],
];
const manifest = { package: "cytoscape", version, files: {} };
for (const [src, dst] of files) {
  copyFileSync(join(pkgDir, src), join(outDir, dst));
  manifest.files[dst] = createHash("sha256").update(readFileSync(join(outDir, dst))).digest("hex");
}
writeFileSync(join(outDir, "VENDORED.json"), JSON.stringify(manifest, null, 2) + "\n");
console.log(`vendored cytoscape ${version} into ${outDir}`);
