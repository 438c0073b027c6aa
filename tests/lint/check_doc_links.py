#!/usr/bin/env python3
"""Every relative link in the project's markdown resolves.

Usage: check_doc_links.py SOURCE_ROOT

Checks README.md, docs/**/*.md and every README.md below the source root (build folders, out/ and
hidden folders aside): each relative link or image, [text](path) or [text](path#anchor), names a
file or folder that exists, and an anchor into a markdown file names one of its headings (GitHub's
slugs). Links inside code (fenced blocks, inline code) and absolute URLs are not links. Also holds
README.md to at most MAX_README_LINES lines: it is the newcomer's page, and studies belong in docs/.
Prints one line per broken link (file:line: link: why) and exits 1 if there is any.
"""
import os
import re
import sys

MAX_README_LINES = 150
SKIP_DIRS = {"out", "subprojects", "node_modules"}
LINK_RE = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE_RE = re.compile(r"^\s*(```|~~~)")
INLINE_CODE_RE = re.compile(r"(`+)(?:(?!\1).)+?\1")
HEADING_RE = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")


def markdown_files(root):
    files = [os.path.join(root, "README.md")]
    docs = os.path.join(root, "docs")
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in SKIP_DIRS
                             and not d.startswith("build") and not (rel == "." and d == "docs"))
        if dirpath != root and "README.md" in filenames:
            files.append(os.path.join(dirpath, "README.md"))
    for dirpath, dirnames, filenames in os.walk(docs):
        dirnames.sort()
        files.extend(os.path.join(dirpath, f) for f in sorted(filenames) if f.endswith(".md"))
    return [f for f in files if os.path.isfile(f)]


def code_free_lines(text, keep_inline_code=False):
    """The file's lines outside fenced blocks, numbered from 1; inline code removed unless kept
    (headings may hold code)."""
    in_fence = False
    for number, line in enumerate(text.split("\n"), 1):
        if FENCE_RE.match(line):
            in_fence = not in_fence
            continue
        if not in_fence:
            yield number, line if keep_inline_code else INLINE_CODE_RE.sub("", line)


def slug(heading):
    """GitHub's anchor for a heading: markup dropped, lower case, punctuation removed, spaces to -."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links keep their text
    text = text.replace("`", "").lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        seen = {}
        found = set()
        with open(path, encoding="utf-8") as f:
            for _, line in code_free_lines(f.read(), keep_inline_code=True):
                m = HEADING_RE.match(line)
                if not m:
                    continue
                s = slug(m.group(2))
                n = seen.get(s, 0)
                seen[s] = n + 1
                found.add(s if n == 0 else "%s-%d" % (s, n))
        cache[path] = found
    return cache[path]


def check_file(path, root):
    problems = []
    with open(path, encoding="utf-8") as f:
        text = f.read()
    rel_file = os.path.relpath(path, root)
    for number, line in code_free_lines(text):
        for m in LINK_RE.finditer(line):
            target = m.group(1)
            if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) or target.startswith("//"):
                continue  # http:, https:, mailto:, ...
            file_part, _, anchor = target.partition("#")
            if file_part.startswith("/"):
                problems.append("%s:%d: %s: absolute path; links are relative to the file"
                                % (rel_file, number, target))
                continue
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) \
                if file_part else path
            if not os.path.exists(dest):
                problems.append("%s:%d: %s: no such file" % (rel_file, number, target))
            elif os.path.relpath(dest, root).startswith(".."):
                problems.append("%s:%d: %s: outside the source tree" % (rel_file, number, target))
            elif anchor and dest.endswith(".md") and os.path.isfile(dest) \
                    and anchor.lower() not in anchors(dest):
                problems.append("%s:%d: %s: no heading '#%s' in %s"
                                % (rel_file, number, target, anchor, os.path.relpath(dest, root)))
    return problems


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__, file=sys.stdout if len(argv) > 1 else sys.stderr, end="")
        return 0 if len(argv) > 1 else 2
    root = os.path.abspath(argv[1])
    if not os.path.isfile(os.path.join(root, "README.md")):
        print("check_doc_links.py: %s: no README.md" % root, file=sys.stderr)
        return 2
    problems = []
    files = markdown_files(root)
    for path in files:
        problems.extend(check_file(path, root))
    with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
        lines = f.read().count("\n")
    if lines > MAX_README_LINES:
        problems.append("README.md: %d lines, at most %d: move studies to docs/"
                        % (lines, MAX_README_LINES))
    for p in problems:
        print(p)
    print("%d markdown files, %d problems" % (len(files), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
