#!/usr/bin/env python3
"""test_readme.py: every command README.md shows, run, and its output compared with what README.md shows.

A command is a line of a fenced code block that starts with `$ `, plus its
continuation lines (a trailing backslash, or a quote still open). The lines after
it, up to the next `$ ` line or the end of the block, are its output; a command
followed directly by another `$ ` line shows no output and must print nothing.
The commands run in order, in one temporary directory (the second command may
use the files of the first), with bash, stdout and stderr together, as a reader
following the README would type them: `build/bin/tessera` there is a link to the
CLI under test, and TSR_SIM_LIB_DIR points at the simulator models. Every
command must exit 0.

Each shown line must equal the printed line (trailing blanks aside), except for
two elisions, which are the only ones allowed:

1. Wall-clock seconds: a line that ends in `, <number> s` (the `cycles:` line of
   gemm and of the SFU commands) matches whatever number the run printed there.
2. `...` in a JSON object: a shown line `{"a": 1, ..., "c": 3, ...}` stands for
   the printed JSON object with the keys shown, in that order, with those values
   (printed text, not rounded), and one or more keys where `...` is. The
   wall-clock keys `wall_seconds` and `sim_cycles_per_second` match any value.
   `...` anywhere else is literal text.

usage: test_readme.py [--doc README.md] [--tessera build/bin/tessera] [--lib-dir build/lib] [--update]

Without --update: prints one block per differing command (a diff, with the README
line numbers) and a summary line; exits 1 if any command differs or fails.
With --update (`make readme`): rewrites the output lines of every command in the
README in place with what the CLI printed, keeping each JSON elision's keys and
each wall-clock figure that still fits, and exits 1 only if a command failed.
"""
import argparse
import difflib
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

FENCE = re.compile(r'^\s*```')
WALL_LINE = re.compile(r'^(.*, )(\d+(?:\.\d+)?) s$')
WALL_KEYS = {'wall_seconds', 'sim_cycles_per_second'}
ELIDED = '...'


class Entry:
    """One `$ ` command of the README: its text, where it is, and the output lines shown."""

    def __init__(self, first, cmd_lines):
        self.first = first                  # 0-based line index of the `$ ` line
        self.cmd_lines = cmd_lines          # the command's lines as written, `$ ` included
        self.out_first = first + len(cmd_lines)
        self.shown = []                     # output lines shown in the README

    @property
    def script(self):
        return '\n'.join([self.cmd_lines[0][2:]] + self.cmd_lines[1:])

    @property
    def label(self):
        return self.cmd_lines[0][2:].strip()


def complete(text):
    """True if `text` is a whole shell command: no trailing backslash and no open quote."""
    if text.endswith('\\'):
        return False
    try:
        shlex.split(text, comments=True)
    except ValueError:
        return False
    return True


def parse(lines):
    """The `$ ` commands of every fenced block, in order."""
    entries, in_block, cur = [], False, None
    i = 0
    while i < len(lines):
        line = lines[i]
        if FENCE.match(line):
            in_block, cur = not in_block, None
            i += 1
            continue
        if in_block and line.startswith('$ '):
            j = i
            while not complete('\n'.join(lines[i:j + 1])[2:]) and j + 1 < len(lines) \
                    and not FENCE.match(lines[j + 1]):
                j += 1
            cur = Entry(i, lines[i:j + 1])
            entries.append(cur)
            i = j + 1
            continue
        if in_block and cur is not None:
            cur.shown.append(line)
        i += 1
    return entries


# ---- JSON elision ------------------------------------------------------------------------

class Raw(str):
    """A JSON number kept as the text the CLI printed."""


def load_raw(text):
    """The top-level object of a JSON line, numbers as printed, or None."""
    try:
        obj = json.loads(text, object_pairs_hook=list, parse_float=Raw, parse_int=Raw)
    except ValueError:
        return None
    return obj if isinstance(obj, list) else None


def dump_value(v):
    if isinstance(v, Raw):
        return str(v)
    if isinstance(v, list):     # a nested object (pairs)
        return '{' + ', '.join(f'{json.dumps(k)}: {dump_value(x)}' for k, x in v) + '}'
    return json.dumps(v)


def template(shown):
    """The items of an elided JSON line: ('...', None) or (key, printed value). None if not one."""
    s = shown.strip()
    if not (s.startswith('{') and s.endswith('}') and ELIDED in s):
        return None
    items = []
    for part in s[1:-1].split(', '):
        if part == ELIDED:
            items.append((ELIDED, None))
            continue
        m = re.match(r'^"([^"\\]*)": (.*)$', part)
        if not m:
            return None
        items.append((m.group(1), m.group(2)))
    return items


def render(items, pairs):
    """The elided line for the printed object `pairs`, keeping the keys of `items`; or an error."""
    keys = [k for k, _ in pairs]
    values = dict(pairs)
    out, pos, gap = [], 0, False
    for key, _ in items:
        if key == ELIDED:
            if gap:
                return None, 'two `...` in a row'
            gap = True
            out.append(ELIDED)
            continue
        if key not in values:
            return None, f'the CLI prints no key "{key}"'
        idx = keys.index(key)
        if idx < pos or (gap and idx == pos) or (not gap and idx != pos):
            return None, f'"{key}" is not where the line shows it (keys printed: {", ".join(keys)})'
        out.append(f'{json.dumps(key)}: {dump_value(values[key])}')
        pos, gap = idx + 1, False
    if gap and pos >= len(keys):
        return None, 'the line ends in `...` but the CLI prints no more keys'
    if not gap and pos != len(keys):
        return None, f'the CLI prints more keys after "{keys[pos - 1]}"; end the line with `...`'
    return '{' + ', '.join(out) + '}', None


def json_matches(items, pairs):
    line, err = render(items, pairs)
    if err:
        return False, err
    shown = {k: v for k, v in items if k != ELIDED}
    for k, v in shown.items():
        if k not in WALL_KEYS and v != dump_value(dict(pairs)[k]):
            return False, f'"{k}": shown {v}, printed {dump_value(dict(pairs)[k])}'
    return True, None


# ---- comparing one line, and refreshing it ----------------------------------------------

def line_matches(shown, printed):
    """(matches, why not) for one shown line against the printed one."""
    shown, printed = shown.rstrip(), printed.rstrip()
    items = template(shown)
    if items is not None:
        pairs = load_raw(printed)
        if pairs is None:
            return False, 'the README elides a JSON object here, but the CLI printed no JSON object'
        return json_matches(items, pairs)
    if shown == printed:
        return True, None
    ws, wp = WALL_LINE.match(shown), WALL_LINE.match(printed)
    if ws and wp and ws.group(1) == wp.group(1):
        return True, None
    return False, None


def refreshed(shown, printed):
    """The line to write for `printed`, keeping the elision or the seconds of `shown` when they still fit."""
    printed = printed.rstrip()
    if shown is None:
        return printed
    ok, _ = line_matches(shown, printed)
    if ok:
        return shown.rstrip()
    items = template(shown)
    pairs = load_raw(printed) if items is not None else None
    if pairs is not None:
        line, err = render(items, pairs)
        if err is None:
            return line
        print(f'test-readme: cannot keep the elided JSON line ({err}): writing the whole line')
    return printed


# ---- running ----------------------------------------------------------------------------

def run_all(entries, tessera, lib_dir, tmp):
    os.makedirs(os.path.join(tmp, 'build', 'bin'))
    os.symlink(os.path.abspath(tessera), os.path.join(tmp, 'build', 'bin', 'tessera'))
    env = dict(os.environ, TSR_SIM_LIB_DIR=os.path.abspath(lib_dir))
    results = []
    for e in entries:
        p = subprocess.run(['bash', '-c', e.script], cwd=tmp, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        results.append((p.returncode, p.stdout.splitlines()))
    return results


def check(doc, entries, results):
    bad = 0
    nlines = 0
    for e, (rc, printed) in zip(entries, results):
        why = []
        if rc != 0:
            why.append(f'exit status {rc}')
        same = len(printed) == len(e.shown)
        if not same:
            why.append(f'{len(e.shown)} line(s) shown, {len(printed)} printed')
        else:
            for k, (s, p) in enumerate(zip(e.shown, printed)):
                ok, reason = line_matches(s, p)
                if not ok:
                    same = False
                    if reason:
                        why.append(f'line {e.out_first + k + 1}: {reason}')
        nlines += len(e.shown)
        if rc == 0 and same:
            continue
        bad += 1
        print(f'test-readme: FAIL: {doc}:{e.first + 1}: $ {e.label}')
        for w in why:
            print(f'  {w}')
        want = [refreshed(s, p) for s, p in zip(e.shown + [None] * len(printed), printed)]
        for d in difflib.unified_diff([s.rstrip() for s in e.shown], want, 'README (shown)',
                                      'printed now', lineterm='', n=1):
            print(f'  {d}')
    if bad:
        print(f'test-readme: {bad} of {len(entries)} commands of {doc} print something else than it shows; '
              f'if the CLI is right, `make readme` rewrites the outputs in {doc}')
        return 1
    print(f'test-readme: all {len(entries)} commands of {doc} print what it shows '
          f'({nlines} output lines; wall-clock seconds and `...` in JSON elided)')
    return 0


def update(doc, lines, entries, results):
    for e, (rc, printed) in zip(entries, results):
        if rc != 0:
            print(f'test-readme: {doc}:{e.first + 1}: `{e.label}` exited {rc}; {doc} left as it was:')
            for p in printed:
                print(f'  {p}')
            return 1
    out, pos, changed = [], 0, 0
    for e, (_, printed) in zip(entries, results):
        out += lines[pos:e.out_first]
        new = [refreshed(s, p) for s, p in zip(e.shown + [None] * len(printed), printed)]
        if new != [s.rstrip() for s in e.shown]:
            changed += 1
            print(f'test-readme: {doc}:{e.first + 1}: output of `{e.label}` rewritten')
        out += new
        pos = e.out_first + len(e.shown)
    out += lines[pos:]
    if changed:
        with open(doc, 'w') as fh:
            fh.write('\n'.join(out) + '\n')
    print(f'test-readme: {doc}: {changed} of {len(entries)} command outputs rewritten')
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--doc', default='README.md')
    ap.add_argument('--tessera', default='build/bin/tessera')
    ap.add_argument('--lib-dir', default='build/lib', help='the simulator models (TSR_SIM_LIB_DIR)')
    ap.add_argument('--update', action='store_true', help='rewrite the outputs in the doc')
    args = ap.parse_args()

    with open(args.doc) as fh:
        lines = fh.read().splitlines()
    entries = parse(lines)
    if not entries:
        print(f'test-readme: FAIL: no `$ ` command found in {args.doc}')
        return 1
    if not os.access(args.tessera, os.X_OK):
        print(f'test-readme: {args.tessera} not found: run make sw')
        return 1
    with tempfile.TemporaryDirectory(prefix='tsr-readme-') as tmp:
        results = run_all(entries, args.tessera, args.lib_dir, tmp)
    if args.update:
        return update(args.doc, lines, entries, results)
    return check(args.doc, entries, results)


if __name__ == '__main__':
    sys.exit(main())
