"""House spelling check (表記統一) for Japanese books, run by seihon on the staged EPUB tree.

Reads hyouki.txt beside this file (variant<TAB>house form) and prints one
`path:line: warning: message` line per variant found in a chapter page; seihon reports it at
the manuscript's line. Text inside code (pre, code, kbd, samp) is left alone.
"""
import os
import re
import sys

if not os.environ.get("SEIHON_LANGUAGE", "").startswith("ja"):
    sys.exit(0)

rules = []
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "hyouki.txt"), encoding="utf-8") as f:
    for raw in f:
        line = raw.rstrip("\n")
        if not line.strip() or line.startswith("#"):
            continue
        variant, house = line.split("\t")
        rules.append((variant, house))

CODE = re.compile(r"<(pre|code|kbd|samp)\b.*?</\1>", re.S)
TAG = re.compile(r"<[^>]*>")


def blank(match):
    # Keep line breaks so that line numbers stay right.
    return "\n" * match.group(0).count("\n")


for root, _, files in os.walk("item/xhtml"):
    for name in sorted(files):
        if not name.endswith(".xhtml") or name in ("nav.xhtml", "cover.xhtml"):
            continue
        path = os.path.join(root, name)
        with open(path, encoding="utf-8") as f:
            text = TAG.sub(blank, CODE.sub(blank, f.read()))
        for number, line in enumerate(text.split("\n"), 1):
            for variant, house in rules:
                inside = [(m.start(), m.end()) for m in re.finditer(re.escape(house), line)]
                for m in re.finditer(re.escape(variant), line):
                    if any(s <= m.start() and m.end() <= e for s, e in inside):
                        continue
                    print(f"{path}:{number}: warning: 「{variant}」は「{house}」と書きます（表記統一）")
