#!/usr/bin/env python3
"""Hostile sizes: peak memory for one huge chapter per format, time for many chapters and for
deeply nested inline markup. Run through `bash bench/limits` (which builds seihon).

The bars (issue 17): peak memory at most 10x the largest chapter, or the chapter refused at
the file with a clear error (seihon reads files of up to 16 MiB, `src/source.rs`); 100k
one-line chapters in under 30 s; 100k nested inline markers in under 2 s. Each row says whether
it holds; the rows at the bound show the peak a file just under it takes.
"""
import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEIHON = ROOT / "target/release/seihon"
WORK = ROOT / "target/bench/limits"

WORDS = (
    "the quick brown fox jumps over a lazy dog while seven editors read proofs of "
    "chapter twelve and note every stray comma in the margin"
).split()
JA = "吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。"


def sentence(i):
    """A varied line of prose (about 100 bytes) so nothing compresses to a trivial case."""
    w = [WORDS[(i * 7 + k * 3) % len(WORDS)] for k in range(14)]
    return " ".join(w) + f" {i}. " + JA[: 8 + i % 20]


def project(name):
    root = WORK / name
    shutil.rmtree(root, ignore_errors=True)
    (root / "books" / "b").mkdir(parents=True)
    return root, root / "books" / "b"


def book_yml(book, fmt, chapters):
    """Markdown: book.yml lists the chapters; Re:VIEW: catalog.yml and config.yml."""
    listed = "".join(f"  - {c}\n" for c in chapters)
    if fmt == "markdown":
        (book / "book.yml").write_text(f"title: Limits\nlanguage: en\nchapters:\n{listed}")
    else:
        (book / "config.yml").write_text("booktitle: Limits\nlanguage: en\n")
        (book / "catalog.yml").write_text(f"CHAPS:\n{listed}")


def write_big(path, size, block):
    """Writes blocks (block(i) -> str) to path until it holds `size` bytes."""
    written, i = 0, 0
    with open(path, "w", encoding="utf-8") as f:
        while written < size:
            s = block(i)
            f.write(s)
            written += len(s.encode("utf-8"))
            i += 1
    return written


def big_markdown(size):
    root, book = project("big-markdown")

    def block(i):
        if i % 400 == 0:
            return f"\n## Section {i} {{#s{i}}}\n\n"
        if i % 50 == 1:
            return f"- item *{i}* with `code {i}`\n- another **item** {i}\n\n"
        return f"{sentence(i)} *emphasis {i}* and a [link](#s{i - i % 400}).\n\n"

    n = write_big(book / "big.md", size, block)
    book_yml(book, "markdown", ["big.md"])
    return root, n


def big_review(size):
    root, book = project("big-review")

    def block(i):
        if i % 400 == 0:
            return f"\n== Section {i}\n\n"
        if i % 50 == 1:
            return f" * item @<b>{{{i}}} with @<code>{{code {i}}}\n * another item {i}\n\n"
        return f"{sentence(i)}\n@<i>{{emphasis {i}}} continues the paragraph.\n\n"

    n = write_big(book / "big.re", size - 20, block)
    with open(book / "big.re", "r+", encoding="utf-8") as f:
        body = f.read()
        f.seek(0)
        f.write("= Big chapter\n\n" + body)
    book_yml(book, "review", ["big.re"])
    return root, n + 15


def big_docbook(size):
    root, book = project("big-docbook")
    path = book / "book.xml"
    head = '<?xml version="1.0" encoding="UTF-8"?>\n<book xmlns="http://docbook.org/ns/docbook" version="5.0">\n<info><title>Limits docbook</title></info>\n<chapter><title>Big</title>\n'
    tail = "</section>\n</chapter>\n</book>\n"

    def block(i):
        x = sentence(i).replace("&", "&amp;").replace("<", "&lt;")
        if i % 400 == 0:
            open_ = "" if i == 0 else "</section>\n"
            return f"{open_}<section><title>Section {i}</title>\n"
        if i % 50 == 1:
            return f"<itemizedlist><listitem><para>item <emphasis>{i}</emphasis></para></listitem></itemizedlist>\n"
        return f"<para>{x} <emphasis>emphasis {i}</emphasis> <literal>code</literal></para>\n"

    with open(path, "w", encoding="utf-8") as f:
        f.write(head)
    n = len(head)
    with open(path, "a", encoding="utf-8") as f:
        written, i = 0, 0
        while written < size - len(head) - len(tail):
            s = block(i)
            f.write(s)
            written += len(s.encode("utf-8"))
            i += 1
        f.write(tail)
    n += written + len(tail)
    return root, n


def many_chapters(fmt, count):
    root, book = project(f"chapters-{fmt}")
    ext = {"markdown": "md", "review": "re"}[fmt]
    names = []
    for i in range(count):
        name = f"c{i:06}.{ext}"
        head = "# " if fmt == "markdown" else "= "
        (book / name).write_text(f"{head}Chapter {i}\n\n{sentence(i)}\n")
        names.append(name)
    book_yml(book, fmt, names)
    return root, count


def nested_markdown(count):
    root, book = project("nested-markdown")
    # `*_*_…x…_*_*`: count markers in one paragraph.
    half = count // 2
    text = "*_" * half + "x" + "_*" * half
    (book / "n.md").write_text("# Nested\n\n" + text + "\n")
    book_yml(book, "markdown", ["n.md"])
    return root, count


def nested_review(count):
    root, book = project("nested-review")
    text = "@<b>{" * count + "x" + "}" * count
    (book / "n.re").write_text("= Nested\n\n" + text + "\n")
    book_yml(book, "review", ["n.re"])
    return root, count


def last_error(root, last):
    """The build's messages (kept by `run`), for telling a refusal from a failure."""
    log = root / ".log"
    return log.read_text(errors="replace") if log.exists() else last


def run(root):
    """(seconds, peak MiB, exit code, last stderr line)."""
    peak_file = root / ".peak"
    start = time.perf_counter()
    p = subprocess.run(
        ["/usr/bin/time", "-f", "%M", "-o", str(peak_file), str(SEIHON), "build", "--force"],
        cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    secs = time.perf_counter() - start
    kib = peak_file.read_text().split()
    peak = int(kib[-1]) / 1024 if kib and kib[-1].isdigit() else 0.0
    (root / ".log").write_bytes(p.stderr[:1 << 20])
    err = [l for l in p.stderr.decode("utf-8", "replace").splitlines() if l.strip()]
    return secs, peak, p.returncode, (err[-1] if err else "")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mb", type=int, default=100, help="size of the huge chapter (MB); default 100")
    p.add_argument("--chapters", type=int, default=100_000, help="default 100000")
    p.add_argument("--nested", type=int, default=100_000, help="default 100000")
    p.add_argument("--only", help="only the rows whose name contains this")
    args = p.parse_args()
    if not SEIHON.exists():
        sys.exit("bench/limits: build seihon first (cargo build --release)")

    size = args.mb * 1_000_000
    bound = 16 * 1024 * 1024 - 4096
    rows = [
        (f"one {args.mb} MB Markdown chapter", lambda: big_markdown(size), "memory"),
        (f"one {args.mb} MB Re:VIEW chapter", lambda: big_review(size), "memory"),
        (f"one {args.mb} MB DocBook book", lambda: big_docbook(size), "memory"),
        ("a Markdown chapter at the bound", lambda: big_markdown(bound), "at bound"),
        ("a Re:VIEW chapter at the bound", lambda: big_review(bound), "at bound"),
        ("a DocBook book at the bound", lambda: big_docbook(bound), "at bound"),
        (f"{args.chapters} one-line Markdown chapters", lambda: many_chapters("markdown", args.chapters), 30.0),
        (f"{args.chapters} one-line Re:VIEW chapters", lambda: many_chapters("review", args.chapters), 30.0),
        (f"{args.nested} nested Markdown markers", lambda: nested_markdown(args.nested), 2.0),
        (f"{args.nested} nested Re:VIEW inlines", lambda: nested_review(args.nested), 2.0),
    ]
    print(f"{'input':<40} {'time':>8} {'peak':>10} {'bar':>16}  result")
    failed = False
    for name, make, bar in rows:
        if args.only and args.only not in name:
            continue
        root, n = make()
        secs, peak, code, last = run(root)
        refused = code == 1 and "seihon reads files of up to" in last_error(root, last)
        if bar == "memory":
            ratio = peak * 1024 * 1024 / n
            ok = ratio <= 10.0 or refused
            bar_s = "refused" if refused else f"{ratio:5.1f}x <= 10x"
        elif bar == "at bound":
            ratio = peak * 1024 * 1024 / n
            ok = code == 0
            bar_s = f"{ratio:5.1f}x (no bar)"
        else:
            ok = secs < bar
            bar_s = f"< {bar:.0f} s"
        outcome = "built" if code == 0 else f"exit {code}: {last[:80]}"
        verdict = "holds" if ok else "MISSED"
        failed |= not ok
        print(f"{name:<40} {secs:7.2f}s {peak:7.0f} MiB {bar_s:>16}  {verdict}, {outcome}", flush=True)
        shutil.rmtree(root, ignore_errors=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
