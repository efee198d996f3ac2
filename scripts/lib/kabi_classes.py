# SPDX-License-Identifier: GPL-2.0-only
#
# Which of our exports may carry Debian's CRC: what scripts/kabi-crc
# applies and scripts/kabi-check reports (Documentation/infiniband/core.rst,
# "The exported ABI").  Computed for each build from the expansions
# genksyms hashed, ours (KBUILD_SYMTYPES) against those of Debian's own
# core modules built from linux-source-6.1 (scripts/stock-symtypes).
"""Classify our exports against Debian's by their genksyms expansions."""

import os
import re
import subprocess
import sys

from symvers import REPO, die

SYMVER = re.compile(r'^#SYMVER (\S+) (0x[0-9a-f]+)$', re.M)
DEFINITION = re.compile(r'\b(?:struct|union|enum)\s+([A-Za-z_]\w*)\s*\{')
TYPEDEF = re.compile(r'\btypedef\b([^;{}]*(?:\{[^{}]*(?:\{[^{}]*\}[^{}]*)*'
                     r'\}[^;{}]*)?);')
TYPEDEF_NAME = re.compile(r'\(\s*\*?\s*([A-Za-z_]\w*)\s*\)\s*\(|'
                          r'([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)*'
                          r'(?:__aligned\s*\(.*\))?$|'
                          r'([A-Za-z_]\w*)\s*\([^()]*\)\s*$')
REF = re.compile(r'^([sute])#(\w+)$')
MARK = '# kabi-crc: the target kernel\'s CRCs (scripts/kabi-crc)\n'

# The classes, in the order kabi-check prints them.
IDENTICAL = 'identical'	# 1: our CRC is Debian's as compiled
ADOPTED = 'adopted'	# 2: only invisible private types differ: Debian's
OURS = 'ours'		# 3: the signature names a private type: ours kept
UNPROVEN = 'unproven'	# no proof available: ours kept
PUBLIC = 'public'	# a public type differs: ours kept, an error
CLASSES = (IDENTICAL, ADOPTED, OURS, UNPROVEN, PUBLIC)
TITLES = {
    IDENTICAL: "1 identical: expansion as stock's, our CRC is Debian's",
    ADOPTED: '2 adopted:   differs only in core-private types no module '
             "outside our set sees: Debian's CRC",
    OURS: '3 ours:      the signature reaches a private structure: '
          'our own CRC',
    UNPROVEN: '  unproven:  no proof (no stock symtypes?): our own CRC',
    PUBLIC: "  public:    a public type differs from stock's: our own CRC",
}


def read(path):
    """A text file's contents."""
    with open(path, encoding='utf-8', errors='replace') as f:
        return f.read()


def split_cmd(text):
    """A .cmd file: (kbuild's and genksyms' part, our block or '')."""
    at = text.find(MARK)
    return (text, '') if at < 0 else (text[:at], text[at:])


class Object:
    """A member object of one of our modules, with its .cmd file."""

    def __init__(self, path):
        self.path = path
        self.cmd = os.path.join(os.path.dirname(path),
                                '.' + os.path.basename(path) + '.cmd')
        self.symtypes = path[:-2] + '.symtypes'
        self.kbuild, self.block = split_cmd(read(self.cmd))
        self.genksyms = dict(SYMVER.findall(self.kbuild))
        self.want = {}		# symbol -> the target's CRC

    def new_block(self):
        """Our block for the CRCs in want, '' when there are none."""
        if not self.want:
            return ''
        lines = [f'#SYMVER {s} {c}\n' for s, c in sorted(self.want.items())]
        return MARK + ''.join(lines)

    def write(self):
        """Replace our block; True if the file changed."""
        block = self.new_block()
        if block == self.block:
            return False
        head = self.kbuild
        if block and not head.endswith('\n'):
            head += '\n'
        with open(self.cmd, 'w', encoding='utf-8') as f:
            f.write(head + block)
        return True


def include_dirs(cmd, kdir, tree):
    """The target kernel's include directories, from an object's command."""
    dirs = []
    for d in re.findall(r'(?:-I\s*|-isystem\s+)(\S+)', cmd):
        d = os.path.realpath(os.path.join(kdir, d))
        if not d.startswith(tree + os.sep) and os.path.isdir(d):
            dirs.append(d)
    return sorted(set(dirs))


def typedef_names(text):
    """The names the typedefs of a header define."""
    names = set()
    for body in TYPEDEF.findall(text):
        found = TYPEDEF_NAME.search(body.strip())
        if found:
            names.add(found.group(1) or found.group(2) or found.group(3))
    return names


def public_names(dirs):
    """The struct, union, enum and typedef names the headers define."""
    public = set()
    for root in dirs:
        for top, _, files in os.walk(root):
            for name in files:
                if name.endswith('.h'):
                    text = read(os.path.join(top, name))
                    public.update(DEFINITION.findall(text))
                    public.update(typedef_names(text))
    return public


def declared_in(dirs, symbols):
    """Which of SYMBOLS the headers name: their public declarations."""
    found = set()
    words = re.compile(r'\b(' + '|'.join(sorted(symbols)) + r')\s*\(')
    for root in dirs:
        for top, _, files in os.walk(root):
            for name in files:
                if name.endswith('.h'):
                    found.update(words.findall(read(os.path.join(top,
                                                                 name))))
    return found


class Privacy:
    """Which type names the target's headers define (public) or not."""

    def __init__(self, public):
        self.public = public

    def private(self, ref):
        """Is REF (s#name, t#name, ...) a type no target header defines?"""
        m = REF.match(ref)
        return bool(m) and m.group(2) not in self.public


def expansion(symtypes):
    """A .symtypes file: key (s#name, t#name, symbol) -> its tokens."""
    types = {}
    for line in read(symtypes).splitlines():
        key, _, rest = line.partition(' ')
        types[key] = tuple(rest.split())
    return types


def closure(types, symbol, privacy):
    """(public part, private names) of SYMBOL's expansion.

    The public part maps each key reached from the symbol without passing
    through a private type to its tokens; the private names are the
    private types reached that way (not followed: their members are the
    core's own business)."""
    public, private, todo = {}, set(), [symbol]
    while todo:
        key = todo.pop()
        if key in public:
            continue
        public[key] = types.get(key)
        for tok in public[key] or ():
            if '#' not in tok:
                continue
            if privacy.private(tok):
                private.add(tok)
            elif tok not in public:
                todo.append(tok)
    return public, private


def declared_only(tokens):
    """Did the compiling file see this type only declared (or not at all)?"""
    return tokens is None or tuple(tokens[-3:]) == ('{', 'UNKNOWN', '}')


def public_differences(mine, theirs):
    """The public keys both expansions define, differently.

    Both files compile against the same headers, so a public type one of
    them sees defined and the other only declared is the one definition
    of the headers on both sides: no difference of layout, only of what
    each file includes.  A type both define differently is a difference
    (another prototype, or a header read under other macros).  Every
    difference below the symbol shows as such a key: the walk from the
    symbol meets the same keys on both sides until a declared-only one."""
    return sorted(k for k in set(mine) & set(theirs)
                  if mine[k] != theirs[k] and
                  not declared_only(mine[k]) and
                  not declared_only(theirs[k]))


def signature_private(types, symbol, privacy):
    """The private types the declaration itself names (through typedefs)."""
    found, seen, todo = set(), set(), [symbol]
    while todo:
        key = todo.pop()
        if key in seen:
            continue
        seen.add(key)
        for tok in types.get(key, ()):
            if privacy.private(tok):
                found.add(tok)
            elif tok.startswith('t#'):
                todo.append(tok)
    return found


class Stock:
    """Debian's core modules, as scripts/stock-symtypes cached them."""

    def __init__(self, directory):
        self.dir = directory
        self.exports = {}	# symbol -> (crc, object, reproduced)
        for line in read(os.path.join(directory, 'exports')).splitlines():
            sym, crc, obj, match = line.split()
            self.exports[sym] = (crc, obj, match == 'same')
        self.imports = {}	# symbol -> the modules of our set using it
        for line in self.lines('imports'):
            module, sym = line.split()
            self.imports.setdefault(sym, set()).add(module)
        headers = {}		# core header -> the types it defines
        for line in self.lines('headers'):
            header, *names = line.split()
            headers[header] = set(names)
        # Types in a core header: files of the core share their layout.
        self.shared = set().union(*headers.values())
        # Types a module outside our set could see: in a core header that
        # a file outside includes (all of them for a "-I").
        self.visible = set()
        for line in self.lines('outside'):
            header = line.split()[0]
            self.visible |= self.shared if header == '(-I)' else \
                headers.get(header, set())
        self.version = read(os.path.join(directory, 'version')).split()
        self.privacy = Privacy(set(self.lines('public')))
        # Exports the headers declare: any module may call them.
        self.declared = set(self.lines('declared'))
        self._types = {}

    def lines(self, name):
        """The lines of one of the cache's lists."""
        return read(os.path.join(self.dir, name)).splitlines()

    def types(self, obj):
        """The expansions of one stock object."""
        if obj not in self._types:
            self._types[obj] = expansion(
                os.path.join(self.dir, 'symtypes', obj + '.symtypes'))
        return self._types[obj]


def stock_cache(build):
    """Debian's symtypes directory (built when BUILD and possible)."""
    script = os.path.join(REPO, 'scripts', 'stock-symtypes')
    args = [script, '--dir'] + (['--build'] if build else ['--quiet'])
    run = subprocess.run(args, stdout=subprocess.PIPE, text=True,
                         check=False)
    if run.returncode == 0 and run.stdout.strip():
        return Stock(run.stdout.strip())
    if run.returncode not in (0, 1):
        die('scripts/stock-symtypes failed')
    return None


def make_symtypes(objects, kdir, tree):
    """Have kbuild write the .symtypes of OBJECTS where missing or stale."""
    stale = [o for o in objects if not os.path.exists(o.symtypes) or
             os.path.getmtime(o.symtypes) < os.path.getmtime(o.path)]
    if not stale:
        return
    targets = [os.path.relpath(o.symtypes, tree) for o in stale]
    run = subprocess.run(['make', '-s', '-C', kdir, f'M={tree}'] + targets,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, check=False)
    if run.returncode:
        sys.stdout.write(run.stdout)
        die('kbuild could not write the .symtypes files')


def our_objects(ours):
    """Every member object of the modules in our Module.symvers."""
    objects = []
    for path in sorted({e.path for e in ours.values()}):
        for line in read(path + '.mod').split():
            objects.append(Object(line))
    return objects


class Row:
    """One export of ours that Debian has: its class and why."""

    def __init__(self, name, module, crc, target):
        self.name, self.module, self.crc, self.target = \
            name, module, crc, target
        self.cls = IDENTICAL if crc == target else UNPROVEN
        self.why = ''

    def line(self):
        """One line of kabi-crc --list."""
        target = '' if self.crc == self.target else ' target ' + self.target
        return (f'{self.cls:<9} {self.module:<9} {self.name} {self.crc}'
                f'{target}{": " + self.why if self.why else ""}')


def judge(row, ours, stock):
    """Class 2, 3, unproven or public for a CRC that differs from Debian's.

    ours: (our object's expansions); stock: the Stock cache or None."""
    if stock is None:
        row.why = 'no symtypes of the stock modules'
        return
    crc, obj, reproduced = stock.exports.get(row.name, (None, None, False))
    if not reproduced or crc != row.target:
        row.why = "the stock build did not reproduce Debian's CRC"
        return
    theirs, privacy = stock.types(obj), stock.privacy
    direct = signature_private(ours, row.name, privacy) | \
        signature_private(theirs, row.name, privacy)
    shared = sorted(t for t in direct if t.split('#')[1] in stock.shared)
    users = sorted(stock.imports.get(row.name, set()) - {row.module})
    if shared and users and row.name not in stock.declared:
        # The layout of the structure is an agreement inside our set: a
        # stock module of the set must not load on ours and pass its own.
        # (One the headers declare, like ib_create_srq_user, is called by
        # ULPs too, which pass NULL for it: Debian's CRC, class 2.)
        row.cls = OURS
        row.why = f'names {", ".join(shared)}; stock {", ".join(users)} ' \
            'imports it'
        return
    mine, mine_private = closure(ours, row.name, privacy)
    stock_public, stock_private = closure(theirs, row.name, privacy)
    differ = public_differences(mine, stock_public)
    if differ:
        row.cls = PUBLIC
        row.why = 'differs in ' + ', '.join(differ[:4]) + \
            (' ...' if len(differ) > 4 else '')
        return
    private = mine_private | stock_private
    seen = sorted(t for t in private if t.split('#')[1] in stock.visible)
    if seen:
        row.why = 'private types seen outside our set: ' + ', '.join(seen)
        return
    row.cls = ADOPTED
    differ = sorted(t for t in private if ours.get(t) != theirs.get(t) and
                    not (declared_only(ours.get(t)) and
                         declared_only(theirs.get(t))))
    row.why = 'private types that differ: ' + ', '.join(differ)


def classify(ours, target, kdir, tree, build):
    """(rows, objects, stock) for our exports that Debian has.

    ours, target: Module.symvers maps; rows are sorted by symbol; each
    object's want holds the CRCs of class 2."""
    objects = our_objects(ours)
    exporter = {s: o for o in objects for s in o.genksyms}
    rows, todo = [], []
    for name, mine in sorted(ours.items()):
        ref = target.get(name)
        obj = exporter.get(name)
        if ref is None or obj is None or ref.module != mine.module or \
                (ref.kind, ref.namespace) != (mine.kind, mine.namespace):
            continue	# missing, moved or another kind: kabi-check says
        row = Row(name, mine.module, obj.genksyms[name], ref.crc)
        rows.append(row)
        if row.cls != IDENTICAL:
            todo.append((row, obj))
    stock = stock_cache(build) if todo else None
    if not todo:
        return rows, objects, stock
    if stock:
        make_symtypes({id(o): o for _, o in todo}.values(), kdir, tree)
    cache = {}
    for row, obj in todo:
        if stock and obj.symtypes not in cache:
            cache[obj.symtypes] = expansion(obj.symtypes)
        judge(row, cache.get(obj.symtypes), stock)
        if row.cls == ADOPTED:
            obj.want[row.name] = row.target
    return rows, objects, stock
