#!/usr/bin/env python3
"""Compares two folders of asset_digest outputs (one .txt per imported file)
number by number: words must match exactly, numbers within TOL relative to
the largest magnitude of the file's bind positions (its diagonal scale) or
absolutely, whichever is larger. Prints each differing file with its first
differences; exit status 1 when any file differs.

Usage: asset_digest_compare.py BEFORE_DIR AFTER_DIR [TOL]"""
import math
import os
import sys


def numbers_or_words(line):
    out = []
    for word in line.split():
        try:
            out.append(float(word))
        except ValueError:
            out.append(word)
    return out


def scale_of(lines):
    biggest = 1.0
    for line in lines:
        if line.startswith("v "):
            for x in numbers_or_words(line)[3:6]:
                if isinstance(x, float) and math.isfinite(x):
                    biggest = max(biggest, abs(x))
    return biggest


def compare(a_path, b_path, tol):
    a = open(a_path, errors="replace").read().splitlines()
    b = open(b_path, errors="replace").read().splitlines()
    if len(a) != len(b):
        return ["%d lines against %d; first: %s | %s" % (len(a), len(b), a[:2], b[:2])]
    scale = scale_of(a)
    problems = []
    for n, (x, y) in enumerate(zip(a, b)):
        if x == y:
            continue
        xs, ys = numbers_or_words(x), numbers_or_words(y)
        same = len(xs) == len(ys)
        for p, q in zip(xs, ys) if same else []:
            if isinstance(p, float) and isinstance(q, float):
                if not (abs(p - q) <= tol * scale or (math.isnan(p) and math.isnan(q))):
                    same = False
            elif p != q:
                same = False
        if not same:
            problems.append("line %d:\n  - %s\n  + %s" % (n + 1, x[:300], y[:300]))
            if len(problems) >= 5:
                break
    return problems


def main():
    before, after = sys.argv[1], sys.argv[2]
    tol = float(sys.argv[3]) if len(sys.argv) > 3 else 1e-6
    differing = 0
    names = sorted(n for n in os.listdir(before) if n.endswith(".txt") and n != "rc.txt")
    for name in names:
        other = os.path.join(after, name)
        if not os.path.exists(other):
            print("MISSING", name)
            differing += 1
            continue
        problems = compare(os.path.join(before, name), other, tol)
        if problems:
            differing += 1
            print("DIFF", name)
            for p in problems:
                print(" ", p)
    print("%d files compared, %d differ" % (len(names), differing))
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
