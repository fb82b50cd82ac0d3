#!/usr/bin/python3
"""Regenerates op_census.md from the TensorFlow-written corpus, or prints the measured
columns of SOURCES.md.

  /usr/bin/python3 tests/tf_corpus/census.py            # rewrite op_census.md
  /usr/bin/python3 tests/tf_corpus/census.py --rows     # measured columns, one line a file
  /usr/bin/python3 tests/tf_corpus/census.py --measure FILE 'MetaGraphDef binary'

The corpus folder and TensorFlow's .proto files are found as corpus_lib.locate describes
(CLAB_TF_CORPUS_DIR and CLAB_TF_PROTO_DIR override). Python modules are generated from the
.proto files with protoc into --gen (a temporary folder by default).
"""

import argparse
import os
import sys
import tempfile

import corpus_lib


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gen", help="folder for the generated *_pb2.py modules")
    ap.add_argument("--protoc", default="protoc")
    ap.add_argument("--rows", action="store_true",
                    help="print producer, nodes, op types, bytes and sha256 of every listed file")
    ap.add_argument("--measure", nargs=2, metavar=("FILE", "FORMAT"),
                    help="measure one file not yet listed, e.g. FILE 'GraphDef text'")
    ap.add_argument("--output", default=corpus_lib.CENSUS_MD)
    args = ap.parse_args()

    proto_dir = corpus_lib.locate_protos()
    if proto_dir is None:
        sys.exit("census: TensorFlow's .proto files not found; set CLAB_TF_PROTO_DIR")
    gen_dir = args.gen or tempfile.mkdtemp(prefix="clab-tf-protos-")
    corpus_lib.generate_modules(proto_dir, gen_dir, args.protoc)

    if args.measure:
        path, fmt = args.measure
        type_name, encoding = corpus_lib.split_format(fmt, "--measure")
        m = corpus_lib.measure(path, type_name, encoding)
        print(m["producer"], m["nodes"], m["op types"], m["bytes"], m["sha256 (first 16)"],
              ",".join(m["tf_versions"]) or "-")
        return

    rows = corpus_lib.read_sources()
    corpus_dir = corpus_lib.locate_corpus(rows)
    if corpus_dir is None:
        sys.exit("census: corpus folder not found; set CLAB_TF_CORPUS_DIR")
    measured = corpus_lib.measure_all(rows, corpus_dir)
    if args.rows:
        for row in rows:
            m = measured[row["file"]]
            print(row["file"], m["producer"], m["nodes"], m["op types"], m["bytes"],
                  m["sha256 (first 16)"], ",".join(m["tf_versions"]) or "-")
        return
    with open(args.output, "w", encoding="utf-8") as f:
        f.write(corpus_lib.render_census(measured))
    print(f"census: {len(measured)} files from {corpus_dir} -> {os.path.relpath(args.output)}")


if __name__ == "__main__":
    try:
        main()
    except corpus_lib.CorpusError as e:
        sys.exit(f"census: {e}")
