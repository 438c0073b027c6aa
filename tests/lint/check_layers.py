#!/usr/bin/env python3
"""Checks the folder dependency graph, scripted from the #include lines of the library sources.

Each source file belongs to the layer of its longest matching folder below. A quoted #include of
another layer is an edge; it must go to a layer this one may use (ALLOWED, strictly lower), so the
graph has no upward edge and no cycle:

  common <- models <- sim/cost <- sim <- {calibrate, study} <- cli, python
  models/zoo registers into models (models does not include the zoo);
  models/torch beside sim (uses models, common);
  space (search spaces) uses models; exec (executors) uses common only;
  proxy (recipes, accuracy data, its generation, finalists) uses space, exec, models/torch;
  surrogate uses proxy and space; search uses all of these and sim; lacs sits above search.

Also: only models/torch includes <torch/...>, only surrogate includes <xgboost/...>, and no
library folder includes tests/ or bench/. tests/ and bench/ may use any layer and are not checked.

Usage: check_layers.py [SOURCE_ROOT]   (default: $DCNAS_SOURCE_ROOT, else this file's ../..)
Prints every bad edge with file:line and the folder graph; exits 1 if any edge is bad.
Python 3 standard library only.
"""
import os
import re
import sys

LOWER = {
    'common': set(),
    'models': {'common'},
    'models/zoo': {'models', 'common'},
    'sim/cost': {'models', 'common'},
    'sim': {'sim/cost', 'models', 'models/zoo', 'common'},
    'models/torch': {'models', 'models/zoo', 'common'},
    'calibrate': {'sim', 'sim/cost', 'models', 'models/zoo', 'common'},
    'study': {'sim', 'sim/cost', 'models', 'models/zoo', 'common'},
    'space': {'models', 'models/zoo', 'common'},
    'exec': {'common'},
    'proxy': {'space', 'exec', 'models/torch', 'models', 'models/zoo', 'common'},
    'surrogate': {'proxy', 'space', 'models', 'models/zoo', 'common'},
    'search': {'surrogate', 'proxy', 'exec', 'space', 'sim', 'sim/cost', 'models', 'models/zoo',
               'models/torch', 'common'},
    'lacs': {'search', 'proxy', 'exec', 'space', 'sim', 'sim/cost', 'models', 'models/zoo',
             'models/torch', 'common'},
    'cli': {'calibrate', 'study', 'lacs', 'search', 'surrogate', 'proxy', 'exec', 'space', 'sim',
            'sim/cost', 'models/torch', 'models', 'models/zoo', 'common'},
    # The Python module: bindings beside the CLI, over the same libraries (not over the CLI).
    'python': {'calibrate', 'study', 'lacs', 'search', 'surrogate', 'proxy', 'exec', 'space',
               'sim', 'sim/cost', 'models/torch', 'models', 'models/zoo',
               'common'},
}
# <header/...> prefixes that only one layer may include (the optional leaves).
LEAF_HEADERS = {'torch/': 'models/torch', 'ATen/': 'models/torch', 'c10/': 'models/torch',
                'xgboost/': 'surrogate'}
UNCHECKED = ('tests', 'bench')
SOURCE_EXTENSIONS = ('.h', '.cc')
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')


def layer_of(rel_path):
    """The layer of a root-relative path, or None when it is in no layer."""
    best = None
    for layer in LOWER:
        if rel_path == layer or rel_path.startswith(layer + '/'):
            if best is None or len(layer) > len(best):
                best = layer
    return best


def source_files(root):
    for top in sorted(os.listdir(root)):
        if top.startswith('.') or top.startswith('build') or not os.path.isdir(
                os.path.join(root, top)):
            continue
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for name in sorted(filenames):
                if name.endswith(SOURCE_EXTENSIONS):
                    yield os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, '/')


def resolve(root, including, target):
    """The root-relative path a quoted include names: from the root first, then beside the file."""
    if os.path.isfile(os.path.join(root, target)):
        return os.path.normpath(target).replace(os.sep, '/')
    beside = os.path.join(os.path.dirname(including), target)
    if os.path.isfile(os.path.join(root, beside)):
        return os.path.normpath(beside).replace(os.sep, '/')
    return None


def main(argv):
    root = argv[1] if len(argv) > 1 else os.environ.get(
        'DCNAS_SOURCE_ROOT', os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
    problems = []
    edges = {}  # (from layer, to layer) -> first file:line
    files = 0
    for rel in source_files(root):
        top = rel.split('/', 1)[0]
        if top in UNCHECKED:
            continue
        src = layer_of(rel)
        if src is None:
            problems.append('%s: folder %s is in no layer; add it to %s' %
                            (rel, os.path.dirname(rel), os.path.basename(__file__)))
            continue
        files += 1
        with open(os.path.join(root, rel), encoding='utf-8') as f:
            for number, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                where = '%s:%d' % (rel, number)
                kind, target = m.groups()
                if kind == '<':
                    for prefix, owner in LEAF_HEADERS.items():
                        if target.startswith(prefix) and src != owner:
                            problems.append('%s: <%s> outside %s (%s)' %
                                            (where, target, owner, src))
                    continue
                path = resolve(root, rel, target)
                if path is None:
                    problems.append('%s: "%s" not found' % (where, target))
                    continue
                if path.split('/', 1)[0] in UNCHECKED:
                    problems.append('%s: library code includes %s' % (where, path))
                    continue
                dst = layer_of(path)
                if dst is None or dst == src:
                    continue
                edges.setdefault((src, dst), where)
                if dst not in LOWER[src]:
                    problems.append('%s: %s -> %s (%s may use only: %s)' %
                                    (where, src, dst, src,
                                     ', '.join(sorted(LOWER[src])) or 'nothing'))
    cycles = find_cycles(edges)
    print('folder graph (%d files):' % files)
    for (src, dst), where in sorted(edges.items()):
        print('  %s -> %s  (first: %s)' % (src, dst, where))
    for cycle in cycles:
        problems.append('cycle: ' + ' -> '.join(cycle))
    for p in problems:
        print('BAD ' + p)
    print('%d bad edges or files' % len(problems))
    return 1 if problems else 0


def find_cycles(edges):
    """Each elementary cycle once, as a list of layers from its smallest name back to itself."""
    graph = {}
    for src, dst in edges:
        graph.setdefault(src, set()).add(dst)
    cycles = set()

    def walk(start, node, path):
        for nxt in sorted(graph.get(node, ())):
            if nxt == start:
                cycles.add(tuple(path + [start]))
            elif nxt > start and nxt not in path:
                walk(start, nxt, path + [nxt])

    for start in sorted(graph):
        walk(start, start, [start])
    return [list(c) for c in sorted(cycles)]


if __name__ == '__main__':
    sys.exit(main(sys.argv))
