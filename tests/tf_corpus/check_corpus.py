#!/usr/bin/python3
"""Checks the TensorFlow-written corpus against TensorFlow's own .proto files.

Run by CTest (tf_corpus_decodes). It generates Python modules from TensorFlow's .proto
files into --gen, parses every file listed in SOURCES.md as its declared type and encoding
(GraphDef, MetaGraphDef or SavedModel; text or binary), and fails when a file does not
parse, holds no nodes, differs from its recorded size, hash, producer version, node count or
op-type count, when the corpus folder holds a file SOURCES.md does not list, or when
op_census.md is not what census.py would write.

Exit status: 0 all good, 1 a check failed, 77 (skipped) when the corpus or the .proto files
are not on this machine (they are third-party material kept outside the repository).
"""

import argparse
import os
import sys

import corpus_lib

SKIP = 77
COMPARED = ["producer", "nodes", "op types", "bytes", "sha256 (first 16)"]


def check(rows, corpus_dir):
    measured = corpus_lib.measure_all(rows, corpus_dir)
    failures = []
    for row in rows:
        m = measured[row["file"]]
        for column in COMPARED:
            if m[column] != row[column]:
                failures.append(f"{corpus_lib.SOURCES_MD}:{row['line']}: {row['file']}: "
                                f"{column} is {m[column]}, SOURCES.md says {row[column]}")
    listed = {row["file"] for row in rows}
    for name in sorted(os.listdir(corpus_dir)):
        if name not in listed and not name.startswith(".") and name != "SOURCES.md":
            failures.append(f"{corpus_dir}/{name}: not listed in SOURCES.md")
    with open(corpus_lib.CENSUS_MD, encoding="utf-8") as f:
        if f.read() != corpus_lib.render_census(measured):
            failures.append(f"{corpus_lib.CENSUS_MD}: out of date; run tests/tf_corpus/census.py")
    return measured, failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gen", required=True, help="folder for the generated *_pb2.py modules")
    ap.add_argument("--protoc", default="protoc")
    args = ap.parse_args()

    rows = corpus_lib.read_sources()
    corpus_dir = corpus_lib.locate_corpus(rows)
    proto_dir = corpus_lib.locate_protos()
    if corpus_dir is None or proto_dir is None:
        print("tf_corpus: skipped: " + ("corpus" if corpus_dir is None else ".proto files")
              + " not found (set CLAB_TF_CORPUS_DIR / CLAB_TF_PROTO_DIR; looked in "
              + ", ".join(corpus_lib.CORPUS_CANDIDATES + corpus_lib.PROTO_CANDIDATES) + ")")
        return SKIP
    corpus_lib.generate_modules(proto_dir, args.gen, args.protoc)
    measured, failures = check(rows, corpus_dir)
    for failure in failures:
        print("FAIL " + failure)
    by_type = {}
    for row in rows:
        key = f"{row['type']} {row['encoding']}"
        by_type[key] = by_type.get(key, 0) + 1
    print(f"tf_corpus: {len(measured)} files from {corpus_dir} parsed with {proto_dir} ("
          + ", ".join(f"{n} {k}" for k, n in sorted(by_type.items())) + ")")
    print(f"tf_corpus: {len(rows)} files checked, {len(failures)} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except corpus_lib.CorpusError as e:
        print(f"FAIL {e}")
        sys.exit(1)
