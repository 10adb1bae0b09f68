"""Reading word vectors in the GloVe / word2vec text format: one word then its numbers per line.

A word2vec file may begin with a header line "<count> <dimension>"; GloVe files have none.
Every error names the line, so a learner can find and fix it.
"""
import math

import numpy as np

from .schema import InputError

MAX_CHARS = 2_000_000
MIN_WORDS = 5


def parse(text: str) -> tuple[list[str], np.ndarray]:
    lines = text.splitlines()
    start, header = 0, None
    first = lines[0].split() if lines else []
    if len(first) == 2 and all(part.isdigit() for part in first):
        header, start = (int(first[0]), int(first[1])), 1
    words, rows, seen = [], [], {}
    dim = header[1] if header else None
    for number, line in enumerate(lines[start:], start=start + 1):
        parts = line.split()
        if not parts:
            continue
        word, values = parts[0], parts[1:]
        if not values:
            raise InputError(f"Line {number} has the word {word[:40]!r} but no numbers after it.")
        if dim is None:
            dim = len(values)
        if len(values) != dim:
            raise InputError(f"Line {number} has {len(values)} numbers, but the vectors have {dim}.")
        try:
            row = [float(v) for v in values]
        except ValueError:
            bad = next(v for v in values if not _is_number(v))
            raise InputError(f"Line {number} has {bad[:40]!r} where a number should be.") from None
        if not all(math.isfinite(x) for x in row):
            raise InputError(f"Line {number} has a number that is not finite (nan or inf).")
        if word in seen:
            raise InputError(f"Line {number} repeats the word {word[:40]!r}, first given on line {seen[word]}.")
        seen[word] = number
        words.append(word)
        rows.append(row)
    if len(words) < MIN_WORDS:
        raise InputError(f"The file has {len(words)} word vectors; at least {MIN_WORDS} are needed.")
    if header and header[0] != len(words):
        raise InputError(f"Line 1 announces {header[0]} words, but the file has {len(words)}.")
    matrix = np.array(rows)
    if np.any(np.linalg.norm(matrix, axis=1) == 0):
        zero = words[int(np.argmin(np.linalg.norm(matrix, axis=1)))]
        raise InputError(f"Line {seen[zero]} gives {zero[:40]!r} a vector of zeros, which has no direction.")
    return words, matrix


def _is_number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False
