#!/usr/bin/env python3
"""Fails when a reference to a section of a document points nowhere.

The project's documents stand alone: every reference in the docs, the help
texts, the page, the configuration example, the scripts, the tests and the
comments names a document of the repository and a section it has.  The one
form is

    docs/PROTOCOL.md section 7.1      (also "PROTOCOL.md section 7.1",
    docs/LOG.md, "settle"              "docs/PROTOCOL.md, section 7.1",
                                       "docs/PROTOCOL.md's section 7.1",
                                       "docs/PROTOCOL.md sections 9 and 10")

and, inside a Markdown document, a bare "section 4.2" means that same
document.

What counts, in every tracked text file but this one (whose self-test holds
bad references on purpose), after joining each file's lines with comment
leaders (/*, *, //, #, --) and C string quotes stripped, so that a
reference broken over two lines of a comment or a help text is read whole:

  - "section N", "sections N, M and K", "sections N to M", "§ N", N being
    a number with or without dots (7, 7.1), case ignored.  The document is
    the one named right before it ("<DOC>.md", "<DOC>.md,", "<DOC>.md's",
    "<DOC>.md (", "[<DOC>.md](...)"), or right after it ("section 6 of
    docs/X.md").  With
    no document named it is the file itself if that is a Markdown file;
    anywhere else it is an error.  The document must be a tracked *.md file
    (its path from the citing file's folder, from the top, or a file name
    only one tracked document has) and each number a numbered heading of it
    ("## 7. ...", "### 7.1 ...", outside code blocks).
  - "protocol section N", "protocol v1, section N", "spec section N", "the
    spec's section N": errors, whatever N: they name no document of the
    repository (they used an outside document's numbers; say
    docs/PROTOCOL.md section N, with the N that says it there).
  - "seed 00N", "seeds 00N and 00M", "shared/spec/", "shared/seeds/",
    "hash-blackjack-v1" (with or without .md): errors; they cite documents
    outside the repository.
  - "<DOC>.md, "Heading"" or "<DOC>.md "Heading"": the quoted text must be
    a heading of that document (case and `backticks` ignored); a quoted
    word followed by ":" is a JSON key, not a heading.
  - Markdown links "(<DOC>.md#anchor)" and "(#anchor)": the anchor must be
    the GitHub anchor of a heading of that document.
  - In a Markdown document with numbered headings: "(7.2)", "(…, 7.1)" and
    "see 4.4" are short references to its own sections.

Not references: "section" without a number after it (the "[chain]
section", the SQLite section), and a section of an outside standard named
right before it: FIPS 180-4, RFC 6455, BIP-340, EIP-155, a quoted title
with its version ('"The Keccak reference" version 3.0, section 1.2').

Usage: check-refs.py [ROOT]       checks the tracked files of ROOT (git
                                  ls-files), after the self-test
       check-refs.py --self-test  checks the checker on made-up files:
                                  no alarm on good references, and each
                                  bad one found
Each reference that points nowhere is printed as FILE:LINE: reason; the
exit status is then 1.  Run by ctest as doc_references (CMakeLists.txt).
"""
import os
import re
import subprocess
import sys

NUM = r"\d+(?:\.\d+)*"
# Section numbers: "4", "2, 5 and 6", "2 to 5", "1.2 (Keccak-f) and 5.1".
SEP = r"(?:\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|to)\s+|\s*-\s*)"
NUMLIST = (NUM + r"(?:\s*\([^()]*\))?(?:" + SEP + NUM
           + r"(?:\s*\([^()]*\))?)*")
SECTION = re.compile(r"(?<![\w-])(?:sections?|§§?)\s*(?P<nums>" + NUMLIST
                     + r")(?![\w.]*\d)", re.I)
# A document's name; it starts where a word does, so that a long run of
# word characters (a hex dump) is tried once, not at each of its positions.
DOC = r"(?<![\w./-])[\w./-]*?\.md(?![\w-])"
# What may stand between a document's name and "section".
DOC_BEFORE = re.compile(r"(?P<doc>" + DOC + r")(?:\]\([^)\s]*\))?`?"
                        r"(?:'s|,)?\s*\(?$")
DOC_AFTER = re.compile(r"^\s*of\s+(?:\[)?(?P<doc>" + DOC + r")\b")
PROTOCOL_BEFORE = re.compile(
    r"\b(?:protocol|spec|specification)(?:'s)?(?:\s+v\d+(?:\.\d+)*)?,?\s*$",
    re.I)
OUTSIDE_BEFORE = re.compile(
    r"(?:\b(?:FIPS|NIST SP)\s*[\d.-]+|\bRFC\s*\d+|\b[BE]IP-?\d+|"
    r"\bSEC\s*\d|\bISO(?:/IEC)?\s*[\d-]+|\"[^\"]+\"\s+version\s+[\d.]+)"
    r",?\s*$")
OUTSIDE_AFTER = re.compile(
    r"^\s*of\s+(?:FIPS|RFC|BIP|EIP|SEC|ISO|NIST)\b", re.I)
SEED = re.compile(r"\bseeds?\s+0\d\d\b(?:" + SEP + r"0\d\d\b)*", re.I)
OUTSIDE_PATH = re.compile(r"shared/(?:spec|seeds)\b|hash-blackjack-v1\b")
QUOTED = re.compile(r"(?P<doc>" + DOC + r")(?:\]\([^)\s]*\))?,?\s+\\?\""
                    r"(?P<name>[^\"\\]{1,100})\\?\"(?!\s*:)")
ANCHOR = re.compile(r"\]\((?P<doc>[^)#\s]*)#(?P<anchor>[^)\s]+)\)")
SHORT = re.compile(r"(?:\((?:[^()]*?[,;]\s*)?|\bsee\s+)(?P<num>\d+\.\d+)(?=\))"
                   r"|\bsee\s+(?P<num2>\d+\.\d+)\b(?!\.\d)")

# Comment leaders and C string quotes at a line's start and end.
LEAD = re.compile(r"^\s*(?:/\*+|\*+(?!/)|//+|#+|--|;+)?\s*")
C_STRING_LINE = re.compile(r'^\s*"(?P<body>.*?)(?:\\n)?"\s*[,;)]*\s*$')
C_LIKE = (".c", ".h", ".js", ".css", ".html")


def heading_slug(text):
    """GitHub's anchor of a heading: lower case, punctuation dropped,
    spaces to hyphens."""
    s = text.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def norm_name(text):
    return re.sub(r"\s+", " ", text.replace("`", "")).strip().lower()


class Doc:
    """The headings of one Markdown document."""

    def __init__(self, text):
        self.numbers = set()
        self.names = set()
        self.anchors = set()
        fence = None
        seen = {}
        for line in text.splitlines():
            m = re.match(r"^\s{0,3}(```+|~~~+)", line)
            if m:
                mark = m.group(1)[0] * 3
                if fence is None:
                    fence = mark
                elif mark == fence:
                    fence = None
                continue
            if fence is not None:
                continue
            m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if not m:
                continue
            title = m.group(1)
            n = re.match(r"^(" + NUM + r")\.?\s", title)
            if n:
                self.numbers.add(n.group(1))
            self.names.add(norm_name(title))
            slug = heading_slug(title)
            count = seen.get(slug, 0)
            seen[slug] = count + 1
            self.anchors.add(slug if count == 0 else "%s-%d" % (slug, count))


def flatten(path, text):
    """The file's lines joined by spaces, comment leaders and C string
    quotes dropped; and the offset at which each line starts."""
    c_like = path.endswith(C_LIKE)
    parts, starts, pos = [], [], 0
    for line in text.split("\n"):
        m = C_STRING_LINE.match(line) if c_like else None
        if m:
            body = m.group("body")
        else:
            body = LEAD.sub("", line, count=1).rstrip()
            if c_like:
                body = re.sub(r"\s*\*+/$", "", body)
        if c_like:
            body = body.replace('\\"', '"')
        starts.append(pos)
        parts.append(body)
        pos += len(body) + 1
    return " ".join(parts), starts


def line_of(starts, offset):
    lo, hi = 0, len(starts) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if starts[mid] <= offset:
            lo = mid
        else:
            hi = mid - 1
    return lo + 1


class Checker:
    def __init__(self, files):
        """files: {path: text} of every tracked text file."""
        self.files = files
        self.docs = {p: Doc(t) for p, t in files.items() if p.endswith(".md")}
        self.errors = []

    def resolve(self, citing, name):
        """The tracked document a name in citing means, else None."""
        here = os.path.dirname(citing)
        for cand in (os.path.normpath(os.path.join(here, name)),
                     os.path.normpath(name)):
            if cand in self.docs:
                return cand
        same = [p for p in self.docs if os.path.basename(p) == name]
        return same[0] if len(same) == 1 else None

    def error(self, path, starts, offset, why):
        self.errors.append((path, line_of(starts, offset), why))

    def check_file(self, path, text):
        flat, starts = flatten(path, text)
        is_md = path.endswith(".md")
        for m in SECTION.finditer(flat):
            self.check_section(path, flat, starts, m, is_md)
        for m in SEED.finditer(flat):
            self.error(path, starts, m.start(),
                       '"%s" cites a seed document, which is outside the '
                       "repository: say it in the repository's own words"
                       % m.group(0))
        for m in OUTSIDE_PATH.finditer(flat):
            self.error(path, starts, m.start(),
                       '"%s" is outside the repository: cite docs/PROTOCOL.md'
                       % m.group(0))
        for m in QUOTED.finditer(flat):
            doc = self.resolve(path, m.group("doc"))
            if doc is None:
                self.error(path, starts, m.start(), "%s is no document of the "
                           "repository" % m.group("doc"))
            elif norm_name(m.group("name")) not in self.docs[doc].names:
                self.error(path, starts, m.start(), '%s has no heading "%s"'
                           % (doc, m.group("name")))
        if is_md:
            for m in ANCHOR.finditer(flat):
                target = m.group("doc")
                if target and (not target.endswith(".md") or ":" in target):
                    continue
                doc = self.resolve(path, target) if target else path
                if doc is None:
                    self.error(path, starts, m.start(), "%s is no document of "
                               "the repository" % target)
                elif m.group("anchor") not in self.docs[doc].anchors:
                    self.error(path, starts, m.start(),
                               "#%s is no heading of %s"
                               % (m.group("anchor"), doc))
            if self.docs[path].numbers:
                for m in SHORT.finditer(flat):
                    num = m.group("num") or m.group("num2")
                    if num not in self.docs[path].numbers:
                        self.error(path, starts, m.start(),
                                   "%s has no section %s" % (path, num))

    def check_section(self, path, flat, starts, m, is_md):
        before = flat[max(0, m.start() - 120):m.start()]
        after = flat[m.end():m.end() + 80]
        nums = re.findall(r"(?<![\d.(])" + NUM + r"(?![\d.])",
                          re.sub(r"\([^()]*\)", "", m.group("nums")))
        said = re.sub(r"\s*\([^()]*\)", "", m.group(0))
        b = DOC_BEFORE.search(before)
        a = DOC_AFTER.search(after)
        if b or a:
            name = (b or a).group("doc")
            doc = self.resolve(path, name)
            if doc is None:
                self.error(path, starts, m.start(), '"%s": %s is no document '
                           "of the repository" % (said, name))
                return
        elif PROTOCOL_BEFORE.search(before):
            how = PROTOCOL_BEFORE.search(before).group(0).strip()
            self.error(path, starts, m.start(),
                       '"%s %s" names no document of the repository: name '
                       "the document and the section that say it (e.g. "
                       "docs/PROTOCOL.md section N)" % (how, said))
            return
        elif OUTSIDE_BEFORE.search(before) or OUTSIDE_AFTER.search(after):
            return
        elif is_md:
            doc = path
        else:
            self.error(path, starts, m.start(),
                       '"%s" names no document: name the document and the '
                       "section that say it (e.g. docs/PROTOCOL.md section N)"
                       % said)
            return
        have = self.docs[doc].numbers
        for n in nums:
            if n not in have:
                self.error(path, starts, m.start(),
                           '"%s": %s has no section %s' % (said, doc, n))

    def run(self):
        for path in sorted(self.files):
            self.check_file(path, self.files[path])
        return self.errors


def listed(root):
    """The tracked files (git ls-files); outside a git work tree, every file
    but build trees and installed packages."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"],
                             check=True, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL).stdout
        return out.decode().split("\0")
    except (OSError, subprocess.CalledProcessError):
        paths = []
        for top, dirs, names in os.walk(root):
            dirs[:] = [d for d in dirs if d not in (".git", "node_modules")
                       and not d.startswith("build")]
            paths += [os.path.relpath(os.path.join(top, n), root)
                      for n in names]
        return paths


def tracked(root):
    """{path: text} of the listed files that are UTF-8 text, this one
    excepted."""
    files = {}
    me = os.path.relpath(os.path.realpath(__file__), os.path.realpath(root))
    for p in listed(root):
        if not p or p == me:
            continue
        try:
            with open(os.path.join(root, p), "rb") as f:
                raw = f.read()
        except (IsADirectoryError, FileNotFoundError):
            continue
        if b"\0" in raw:
            continue
        try:
            files[p] = raw.decode("utf-8")
        except UnicodeDecodeError:
            continue
    return files


def self_test():
    """The checker on made-up files: no alarm on the good ones, and on the
    bad ones exactly the alarms listed (file, line, what it says)."""
    doc = ("# T\n\n## 1. One\n\n### 1.1 Sub\n\n```\n## 9. In code\n```\n"
           "## Named `x`\n\nsection 1.1, sections 1 and 1.1, (1.1), "
           "see 1.1.\n")
    good = {
        "docs/T.md": doc,
        "docs/U.md": "# U\n\ndocs/T.md section 1.1; [T.md](T.md) section 1; "
                     "T.md's section 1.1; docs/T.md, \"Named x\"; "
                     "[a](T.md#11-sub), [b](#u), section 1 of docs/T.md, "
                     "docs/T.md (sections 1 and 1.1). The [chain] section, "
                     "the SQLite section; docs/T.md, \"chain\": \"x\"; "
                     "[c](https://example.org/T.md#x).\n",
        "a.c": "/* docs/T.md\n * section 1.1, FIPS 180-4, section 6.2, and\n"
               " * \"The Keccak reference\" version 3.0, sections 1.2 and 5.1,"
               " RFC 6455, section 5 */\n"
               '    "help (docs/T.md, \\"Named\\n"\n'
               '    "x\\") and docs/T.md\\n"\n    "section 1.1\\n"\n',
    }
    bad = {
        "docs/V.md": "# V\n\nsection 2; docs/T.md section 9; protocol "
                     "section 1; docs/T.md, \"Nothing\"; [a](T.md#nope); "
                     "X.md section 1; seed 002; (3.1); \"docs/T.md section "
                     "1\", a bare \"section 7\"\n## 1. One\n",
        "b.c": "/* the card (protocol v1,\n * section 1); spec section 6;"
               " section 3 */\n"
               '    "edge (protocol\\n"\n    "section 9)\\n"\n'
               "/* shared/spec/hash-blackjack-v1.md; seeds 003 and 004;"
               " \u00a7 1.1; sections 1 and 1.1 of docs/T.md; docs/T.md"
               " sections 1 to 3 */\n",
    }
    want = sorted([
        ("docs/V.md", 3, "no section 2"), ("docs/V.md", 3, "no section 9"),
        ("docs/V.md", 3, '"protocol section 1"'),
        ("docs/V.md", 3, 'no heading "Nothing"'), ("docs/V.md", 3, "#nope"),
        ("docs/V.md", 3, "X.md is no document"), ("docs/V.md", 3, "seed 002"),
        ("docs/V.md", 3, "no section 3.1"), ("docs/V.md", 3, "no section 7"),
        ("b.c", 2, '"protocol v1, section 1"'), ("b.c", 2, '"spec section 6"'),
        ("b.c", 2, '"section 3" names no document'),
        ("b.c", 4, '"protocol section 9"'), ("b.c", 5, '"shared/spec"'),
        ("b.c", 5, '"hash-blackjack-v1"'),
        ("b.c", 5, '"seeds 003 and 004"'),
        ("b.c", 5, '"\u00a7 1.1" names no document'),
        ("b.c", 5, "docs/T.md has no section 3"),
    ])
    ok = True
    for e in Checker(good).run():
        ok = False
        print("self-test: false alarm %s:%d: %s" % e, file=sys.stderr)
    files = dict(good)
    files.update(bad)
    got = Checker(files).run()
    left = list(got)
    for path, line, what in want:
        hit = [e for e in left if e[:2] == (path, line) and what in e[2]]
        if hit:
            left.remove(hit[0])
        else:
            ok = False
            print("self-test: no alarm %s:%d: %s" % (path, line, what),
                  file=sys.stderr)
    for e in left:
        ok = False
        print("self-test: unexpected %s:%d: %s" % e, file=sys.stderr)
    print("check-refs self-test: %d passed, %d failed" % (ok, not ok))
    return ok


def main(argv):
    if argv[1:] == ["--self-test"]:
        return 0 if self_test() else 1
    # The checker checks itself first: a checker that finds nothing fails.
    if not self_test():
        return 1
    root = argv[1] if len(argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..")
    errs = Checker(tracked(root)).run()
    for e in errs:
        print("%s:%d: %s" % e, file=sys.stderr)
    if errs:
        print("check-refs: %d references point nowhere" % len(errs),
              file=sys.stderr)
    print("check-refs: %d passed, %d failed" % (not errs, bool(errs)))
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
