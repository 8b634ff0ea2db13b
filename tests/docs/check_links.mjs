// Checks that every relative link, and every #anchor, in the project's
// Markdown resolves: the file (or folder) exists, and the anchor names a
// heading of the target page under GitHub's slug rules (lower case, spaces
// to '-', punctuation dropped, '-1', '-2' … for repeated headings) or an
// explicit id/name. External links (http:, https:, mailto:) are not fetched.
//
// Usage: node tests/docs/check_links.mjs [FILE.md …]
// Without files: README.md, docs/*.md and examples/README.md of the
// repository this script lives in. Exits 1 and lists every broken link.

import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

function defaultFiles() {
  const docs = readdirSync(join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => join(root, "docs", f));
  return [join(root, "README.md"), ...docs, join(root, "examples/README.md")]
    .filter((f) => existsSync(f));
}

// Lines outside fenced code blocks, with inline code spans blanked, so that
// example text such as `[x](y)` inside code is not taken for a link.
function proseLines(text) {
  const out = [];
  let fence = null;
  text.split("\n").forEach((line, i) => {
    const m = line.match(/^\s{0,3}(`{3,}|~{3,})/);
    if (m) {
      if (fence === null) fence = m[1];
      else if (m[1][0] === fence[0] && m[1].length >= fence.length) fence = null;
      return;
    }
    if (fence === null) out.push({ n: i + 1, line });
  });
  return out;
}

function stripCode(line) {
  return line.replace(/(`+)(.*?)\1/g, (s) => " ".repeat(s.length));
}

// GitHub's slug of a heading's rendered text.
export function slug(heading) {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1") // links and images: their text
    .replace(/<[^>]+>/g, "") // inline HTML tags
    .replace(/`/g, "")
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "").replace(/ /g, "-");
}

const anchorCache = new Map();
function anchorsOf(file) {
  if (anchorCache.has(file)) return anchorCache.get(file);
  const anchors = new Set();
  const seen = new Map();
  for (const { line } of proseLines(readFileSync(file, "utf8"))) {
    const h = line.match(/^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/);
    if (h) {
      const base = slug(h[1]);
      const k = seen.get(base) ?? 0;
      seen.set(base, k + 1);
      anchors.add(k === 0 ? base : `${base}-${k}`);
    }
    for (const m of line.matchAll(/<a\s[^>]*(?:id|name)="([^"]+)"/g))
      anchors.add(m[1]);
  }
  anchorCache.set(file, anchors);
  return anchors;
}

function linksOf(file) {
  const links = [];
  for (const { n, line } of proseLines(readFileSync(file, "utf8"))) {
    const prose = stripCode(line);
    // [text](target) and ![alt](target); target may be <...> and have a title.
    for (const m of prose.matchAll(/!?\[[^\]]*\]\(\s*(<[^>]*>|[^)\s]+)/g))
      links.push({ n, target: m[1].replace(/^<|>$/g, "") });
    // Reference definitions: [label]: target
    const ref = prose.match(/^\s{0,3}\[[^\]]+\]:\s*(\S+)/);
    if (ref) links.push({ n, target: ref[1] });
  }
  return links;
}

export function check(files) {
  const broken = [];
  for (const file of files) {
    for (const { n, target } of linksOf(file)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // external
      const hash = target.indexOf("#");
      const pathPart = decodeURI(hash < 0 ? target : target.slice(0, hash));
      const anchor = hash < 0 ? null : decodeURIComponent(target.slice(hash + 1));
      const where = `${relative(root, file) || file}:${n}`;
      const dest = pathPart === "" ? file : resolve(dirname(file), pathPart);
      if (!existsSync(dest)) {
        broken.push(`${where}: ${target}: no such file ${relative(root, dest)}`);
        continue;
      }
      if (anchor === null) continue;
      if (statSync(dest).isDirectory() || !dest.endsWith(".md")) {
        broken.push(`${where}: ${target}: an anchor into a file that is not Markdown`);
        continue;
      }
      if (!anchorsOf(dest).has(anchor))
        broken.push(`${where}: ${target}: no heading '#${anchor}' in ${relative(root, dest)}`);
    }
  }
  return broken;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2).map((f) => resolve(f));
  const files = args.length > 0 ? args : defaultFiles();
  const broken = check(files);
  for (const b of broken) console.error(`broken link: ${b}`);
  const count = files.reduce((s, f) => s + linksOf(f).length, 0);
  console.log(`${files.length} files, ${count} links, ${broken.length} broken`);
  process.exit(broken.length === 0 ? 0 : 1);
}
