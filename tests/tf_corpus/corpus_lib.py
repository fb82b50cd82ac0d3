"""Reading the TensorFlow-written graph corpus listed in SOURCES.md.

The corpus files and TensorFlow's own .proto files are third-party material kept outside the
repository (see SOURCES.md). This module finds them, generates Python modules from the .proto
files with protoc, parses each corpus file as the type SOURCES.md declares, and measures it
(producer version, node count, op types) for census.py and check_corpus.py.

Runs with /usr/bin/python3 (Debian's python3-protobuf).
"""

import collections
import hashlib
import importlib
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.path.dirname(os.path.dirname(HERE))
SOURCES_MD = os.path.join(HERE, "SOURCES.md")
CENSUS_MD = os.path.join(HERE, "op_census.md")

# Where the material may lie, first match wins: an explicit environment variable, the
# repository's own tests/ folders, then a shared/ folder beside the checkout.
CORPUS_CANDIDATES = [
    os.path.join(SOURCE_ROOT, "tests", "data", "tf_corpus"),
    os.path.join(os.path.dirname(SOURCE_ROOT), "shared", "tf_corpus"),
]
PROTO_CANDIDATES = [
    os.path.join(SOURCE_ROOT, "tests", "tf_protos"),
    os.path.join(os.path.dirname(SOURCE_ROOT), "shared", "tf_protos"),
]

# The .proto files the corpus needs, relative to the include root.
NEEDED_PROTOS = [
    "tensorflow/core/framework/graph.proto",
    "tensorflow/core/protobuf/meta_graph.proto",
    "tensorflow/core/protobuf/saved_model.proto",
]

FORMATS = {
    "GraphDef": ("tensorflow.core.framework.graph_pb2", "GraphDef"),
    "MetaGraphDef": ("tensorflow.core.protobuf.meta_graph_pb2", "MetaGraphDef"),
    "SavedModel": ("tensorflow.core.protobuf.saved_model_pb2", "SavedModel"),
}
ENCODINGS = ("text", "binary")

SOURCES_COLUMNS = ["file", "repository", "path", "commit", "family", "format", "TF",
                   "producer", "nodes", "op types", "bytes", "sha256 (first 16)"]


class CorpusError(Exception):
    """A corpus file, the sources table or the proto set is not as expected."""


def locate(env_name, candidates, probe):
    """Returns the first folder holding `probe`: $env_name if set (it must hold it), else a
    candidate; None when no candidate has it."""
    explicit = os.environ.get(env_name)
    if explicit:
        if not os.path.exists(os.path.join(explicit, probe)):
            raise CorpusError(f"{env_name}={explicit} does not contain {probe}")
        return explicit
    for folder in candidates:
        if os.path.exists(os.path.join(folder, probe)):
            return folder
    return None


def locate_protos():
    return locate("CLAB_TF_PROTO_DIR", PROTO_CANDIDATES, NEEDED_PROTOS[0])


def locate_corpus(rows):
    return locate("CLAB_TF_CORPUS_DIR", CORPUS_CANDIDATES, rows[0]["file"])


def generate_modules(proto_dir, gen_dir, protoc="protoc"):
    """Generates *_pb2.py for every .proto under proto_dir/tensorflow into gen_dir and puts
    gen_dir first on sys.path."""
    protos = []
    for root, _, files in os.walk(os.path.join(proto_dir, "tensorflow")):
        protos += [os.path.relpath(os.path.join(root, f), proto_dir)
                   for f in files if f.endswith(".proto")]
    missing = [p for p in NEEDED_PROTOS if p not in protos]
    if missing:
        raise CorpusError(f"{proto_dir} lacks {', '.join(missing)}")
    os.makedirs(gen_dir, exist_ok=True)
    cmd = [protoc, "-I", proto_dir, f"--python_out={gen_dir}"] + sorted(protos)
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise CorpusError(f"protoc failed on {proto_dir}:\n{done.stderr}")
    sys.path.insert(0, gen_dir)


def message_class(type_name):
    module_name, class_name = FORMATS[type_name]
    return getattr(importlib.import_module(module_name), class_name)


def parse(path, type_name, encoding):
    """Parses one file as the declared type; raises CorpusError naming the file."""
    from google.protobuf import message as pb_message
    from google.protobuf import text_format
    msg = message_class(type_name)()
    with open(path, "rb") as f:
        data = f.read()
    try:
        if encoding == "text":
            text_format.Parse(data.decode("utf-8"), msg)
        else:
            msg.ParseFromString(data)
    except (text_format.ParseError, pb_message.DecodeError, UnicodeDecodeError) as e:
        raise CorpusError(f"{path}: does not parse as {type_name} ({encoding}): {e}")
    return msg


def graphs_of(msg, type_name):
    if type_name == "GraphDef":
        return [msg]
    if type_name == "MetaGraphDef":
        return [msg.graph_def]
    return [meta.graph_def for meta in msg.meta_graphs]


def tf_versions_of(msg, type_name):
    if type_name == "MetaGraphDef":
        metas = [msg]
    elif type_name == "SavedModel":
        metas = list(msg.meta_graphs)
    else:
        return []
    return sorted({m.meta_info_def.tensorflow_version for m in metas
                   if m.meta_info_def.tensorflow_version})


def measure(path, type_name, encoding):
    """Parses the file and returns what SOURCES.md records about it."""
    msg = parse(path, type_name, encoding)
    graphs = graphs_of(msg, type_name)
    if not graphs or sum(len(g.node) for g in graphs) == 0:
        raise CorpusError(f"{path}: {type_name} holds no graph nodes")
    ops = set()
    for g in graphs:
        ops.update(n.op for n in g.node)
        for fn in g.library.function:
            ops.update(n.op for n in fn.node_def)
    with open(path, "rb") as f:
        data = f.read()
    return {
        "producer": ",".join(str(p) for p in sorted({g.versions.producer for g in graphs})),
        "nodes": str(sum(len(g.node) for g in graphs)),
        "op types": str(len(ops)),
        "bytes": str(len(data)),
        "sha256 (first 16)": hashlib.sha256(data).hexdigest()[:16],
        "ops": ops,
        "tf_versions": tf_versions_of(msg, type_name),
    }


def split_format(cell, where):
    parts = cell.split()
    if len(parts) != 2 or parts[0] not in FORMATS or parts[1] not in ENCODINGS:
        raise CorpusError(f"{where}: format '{cell}' is not '<GraphDef|MetaGraphDef|"
                          f"SavedModel> <text|binary>'")
    return parts[0], parts[1]


def read_sources(path=SOURCES_MD):
    """Returns the rows of the corpus table in SOURCES.md as dicts keyed by column name."""
    rows = []
    header = None
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.startswith("|"):
                header = None
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if header is None:
                if cells == SOURCES_COLUMNS:
                    header = cells
                continue
            if set("".join(cells)) <= set("-: "):
                continue
            if len(cells) != len(header):
                raise CorpusError(f"{path}:{lineno}: {len(cells)} cells, expected {len(header)}")
            row = dict(zip(header, cells))
            row["file"] = row["file"].strip("`")
            row["type"], row["encoding"] = split_format(row["format"], f"{path}:{lineno}")
            row["line"] = lineno
            rows.append(row)
    if not rows:
        raise CorpusError(f"{path}: no corpus table with columns {' | '.join(SOURCES_COLUMNS)}")
    return rows


def census(measured):
    """measured: {file: measure(...)}. Returns [(op, number of files using it)], most used
    first, ties by name."""
    counts = collections.Counter()
    for m in measured.values():
        counts.update(m["ops"])
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


def render_census(measured):
    table = census(measured)
    lines = [
        "# Op census of the TensorFlow-written corpus",
        "",
        "Generated by `tests/tf_corpus/census.py` from the files listed in SOURCES.md; do not",
        "edit by hand. An op counts for a file when any node of the file's graph, or of a",
        "function in the graph's library, has that op type.",
        "",
        f"Files: {len(measured)}. Distinct op types: {len(table)}.",
        "",
        "| op | files |",
        "| --- | ---: |",
    ]
    lines += [f"| {op} | {n} |" for op, n in table]
    return "\n".join(lines) + "\n"


def measure_all(rows, corpus_dir):
    measured = {}
    for row in rows:
        path = os.path.join(corpus_dir, row["file"])
        if not os.path.isfile(path):
            raise CorpusError(f"{SOURCES_MD}:{row['line']}: {row['file']} is not in {corpus_dir}")
        measured[row["file"]] = measure(path, row["type"], row["encoding"])
    return measured
