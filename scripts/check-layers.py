#!/usr/bin/env python3
"""Fails when the code's house (docs/HACKING.md, "The house") is broken.

The product's folders are layers, each one library, from the ground up:

    base     game/base/     the ground floor: buffer, messages, map
    game     game/          the pure engine
    chain    chain/         nodes and their formats
    dealer   daemon/core/   the dealer's core, which both programs link
    daemon   daemon/        hashjackd alone
    cli      cli/, cli/serve/   the tool

Checked here, from the sources and, when a build directory is given, from
its objects:

  1. Includes go down: a file includes only headers of its own layer or of
     a layer below it (daemon and cli are side by side: neither includes
     the other).  CMake's include directories refuse most of this at
     compile time; this says it in words, and catches a header found
     through a layer's own folder by accident.
  2. One prefix per layer: the functions and types a layer's headers
     declare are named hj_ (base, game, chain, dealer), hjd_ (daemon) or
     hjc_ (cli); the word after the prefix (the module: hj_store_...,
     hj_rpc_...) belongs to one layer only.
  3. No file of the product is over 1,500 lines unless its opening
     comment says why ("... lines because ...").
  4. With a build directory: no circle of calls between modules (a module
     is a header and the .c files that implement it: store.h with store.c,
     store_read.c, ...), read from the objects' defined and undefined
     symbols (nm).  game/next.c and game/table.c once called each other.

Usage: check-layers.py ROOT [BUILD_DIR]
"""
import collections
import os
import re
import subprocess
import sys

LAYERS = [  # (name, folders, prefix, may use)
    ("base", ["game/base"], "hj_", []),
    ("game", ["game"], "hj_", ["base"]),
    ("chain", ["chain"], "hj_", ["base", "game"]),
    ("dealer", ["daemon/core"], "hj_", ["base", "game", "chain"]),
    ("daemon", ["daemon"], "hjd_", ["base", "game", "chain", "dealer"]),
    ("cli", ["cli", "cli/serve"], "hjc_", ["base", "game", "chain", "dealer"]),
]
LONG = 1500

# System-wide names the code declares in its headers that are not ours
# to prefix (none today); names of other libraries are never declared.
DECL = re.compile(
    r"^(?:typedef\s+(?:struct|enum|union)?\s*\w*\s*(?:\{|\w+\s*;)?|"
    r"(?:static\s+inline\s+)?(?:const\s+)?(?:unsigned\s+|struct\s+|enum\s+)?"
    r"\w+[\s\*]+)(?P<name>hj[a-z]?_\w+)\s*\(",
    re.M)
TYPEDEF_END = re.compile(r"^}\s*\*?\s*(?P<name>\w+)\s*;", re.M)
TYPEDEF_FN = re.compile(r"^typedef\s+[\w\s\*]+\(\s*\*\s*(?P<name>\w+)\s*\)",
                        re.M)
TYPEDEF_ONE = re.compile(
    r"^typedef\s+(?:const\s+)?(?:struct|enum|union)?\s*[\w\s\*]*?\b"
    r"(?P<name>\w+)\s*;", re.M)


def layer_of(path):
    """The layer of a product file (path from the top), or None."""
    folder = os.path.dirname(path)
    for name, folders, _, _ in LAYERS:
        if folder in folders:
            return name
    return None


def product_files(root):
    out = []
    for _, folders, _, _ in LAYERS:
        for folder in folders:
            d = os.path.join(root, folder)
            for f in sorted(os.listdir(d)):
                if f.endswith((".c", ".h")):
                    out.append(os.path.join(folder, f))
    return out


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"),
                  text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    root = sys.argv[1]
    build = sys.argv[2] if len(sys.argv) == 3 else None
    files = product_files(root)
    layers = {name: (prefix, set(uses)) for name, _, prefix, uses in LAYERS}
    headers = collections.defaultdict(list)  # name.h -> [paths]
    for f in files:
        if f.endswith(".h"):
            headers[os.path.basename(f)].append(f)
    errors = []

    # 1. Includes go down.
    for f in files:
        me = layer_of(f)
        text = open(os.path.join(root, f), encoding="utf-8").read()
        for m in re.finditer(r'^#include\s+"([^"]+)"', text, re.M):
            inc = os.path.basename(m.group(1))
            # The include directories of a layer's library: a header of
            # the including file's own folder first, then below.
            found = [h for h in headers.get(inc, [])
                     if layer_of(h) == me or layer_of(h) in layers[me][1]]
            if not headers.get(inc):
                continue  # generated (www.h's data) or a system header
            if not found:
                errors.append("%s includes %s, of the %s layer above or "
                              "beside it" % (f, headers[inc][0],
                                             layer_of(headers[inc][0])))
            elif len({layer_of(h) for h in found}) > 1:
                errors.append("%s includes %s, which names headers of "
                              "several layers: %s" % (f, inc,
                                                      ", ".join(found)))

    # 2. One prefix per layer, one layer per module word.
    module_layers = collections.defaultdict(set)
    where = {}
    for f in files:
        if not f.endswith(".h"):
            continue
        me = layer_of(f)
        prefix = layers[me][0]
        text = strip_comments(open(os.path.join(root, f),
                                   encoding="utf-8").read())
        names = set(m.group("name") for m in DECL.finditer(text))
        for rx in (TYPEDEF_END, TYPEDEF_FN, TYPEDEF_ONE):
            names |= set(m.group("name") for m in rx.finditer(text))
        for n in sorted(names):
            if not re.match(r"hj[a-z]?_", n):
                errors.append("%s declares %s: a name of this house "
                              "begins with %s here" % (f, n, prefix))
                continue
            if not n.startswith(prefix) or (prefix == "hj_" and
                                            n.startswith(("hjd_", "hjc_"))):
                errors.append("%s declares %s: the %s layer's names "
                              "begin with %s" % (f, n, me, prefix))
                continue
            word = n[len(prefix):].split("_")[0]
            module_layers[prefix + word].add(me)
            where.setdefault((prefix + word, me), f)
    for word, ls in sorted(module_layers.items()):
        if len(ls) > 1:
            errors.append("prefix %s_ is used by layers %s (%s): one layer "
                          "a prefix" % (word, ", ".join(sorted(ls)), ", ".join(
                              where[(word, l)] for l in sorted(ls))))

    # 3. Long files say why.
    for f in files:
        lines = open(os.path.join(root, f), encoding="utf-8").read()
        n = lines.count("\n")
        head = lines[:4000]
        if n > LONG and not re.search(r"lines\s+because", head):
            errors.append("%s has %d lines: split it along its seams, or "
                          "say in its opening comment why not (\"... lines "
                          "because ...\")" % (f, n))

    # 4. No circle of calls between modules.
    if build:
        errors += circles(root, build, files)

    for e in errors:
        print("check-layers: " + e, file=sys.stderr)
    print("check-layers: %d passed, %d failed" % (not errors, bool(errors)))
    return 1 if errors else 0


def module_of(c_path, headers):
    """A .c file's module: the header of its folder whose name its own
    name begins with (store_read.c -> store.h), longest first."""
    folder, base = os.path.split(c_path)
    stem = base[:-2]
    best = None
    for h in headers:
        hf, hb = os.path.split(h)
        hs = hb[:-2]
        if hf == folder and (stem == hs or stem.startswith(hs + "_")):
            if best is None or len(hs) > len(best[1]):
                best = (h, hs)
    return best[0] if best else c_path


def circles(root, build, files):
    hs = [f for f in files if f.endswith(".h")]
    objs = {}
    for dirpath, _, names in os.walk(build):
        for n in names:
            if n.endswith(".c.o") and "CMakeFiles" in dirpath:
                objs.setdefault(n[:-2], []).append(os.path.join(dirpath, n))
    defined = {}
    undefined = collections.defaultdict(set)
    seen = 0
    for f in files:
        if not f.endswith(".c"):
            continue
        # CMake names an object after its source: .../hj_x.dir/<path>.c.o
        cands = [o for o in objs.get(os.path.basename(f), [])
                 if o.replace(os.sep, "/").endswith("/" + f + ".o")]
        if not cands:
            continue
        seen += 1
        mod = module_of(f, hs)
        out = subprocess.run(["nm", cands[0]], capture_output=True,
                             text=True, check=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in "TDBR":
                defined[parts[2]] = mod
            elif len(parts) == 2 and parts[0] == "U":
                undefined[mod].add(parts[1])
    if seen == 0:
        return ["no object of the product under %s: build it first" % build]
    graph = collections.defaultdict(set)
    for mod, syms in undefined.items():
        for s in syms:
            d = defined.get(s)
            if d and d != mod:
                graph[mod].add(d)
    errors = []
    for scc in tarjan(graph):
        if len(scc) > 1:
            errors.append("modules call each other in a circle: " +
                          " -> ".join(sorted(scc)))
    return errors


def tarjan(graph):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    nodes = set(graph) | {d for ds in graph.values() for d in ds}

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            scc = []
            while True:
                w = stack.pop()
                on.discard(w)
                scc.append(w)
                if w == v:
                    break
            out.append(scc)

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


if __name__ == "__main__":
    sys.exit(main())
