"""Reads every file a ClusterLab training run writes into its checkpoint directory with
independent readers: the messages are decoded with Python modules generated at test time
from TensorFlow's own .proto files ($CLAB_TF_PROTO_DIR, see tests/tf_corpus/SOURCES.md),
the table and record framing by tf_formats.py, written from the formats' descriptions.

The runs are `clab train` of the linear-regression project (one ps, one worker) to step 60
and then, restoring from the first one's checkpoint, to step 120, with a checkpoint every 10
steps and the default summaries every 100; then `clab graph show` reads a .meta back; and a
`clab train` of the digits MLP to step 250, whose events hold "loss" and "accuracy". Checked:
  checkpoint                    CheckpointState text proto; relative paths; the newest last
  model.ckpt-N.index            table format (footer, block CRCs, key order); header entry
                                (BundleHeaderProto); one BundleEntryProto per variable
  model.ckpt-N.data-00000-of-00001  each entry's bytes match its masked CRC-32C; global_step
                                holds N
  model.ckpt-N.meta             MetaGraphDef: producer, saver_def names nodes of the graph,
                                SaveV2/RestoreV2 saver, collections name existing nodes
  graph.pbtxt                   GraphDef text: producer, the same saver nodes
  events.out.tfevents.*         TFRecord framing with masked CRCs; Event protos: file_version,
                                graph_def (with devices), meta_graph_def, scalar "loss"
Without TensorFlow's .proto files the test exits 77 (skipped)."""

import argparse
import glob
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tf_formats  # noqa: E402

SKIPPED = 77
NEEDED_PROTOS = [
    "tensorflow/core/protobuf/meta_graph.proto",
    "tensorflow/core/protobuf/tensor_bundle.proto",
    "tensorflow/core/util/event.proto",
    "tensorflow/python/training/checkpoint_state.proto",
]


class Checks:
    def __init__(self):
        self.failures = []
        self.files = {}

    def expect(self, condition, what):
        if not condition:
            self.failures.append(what)
            print(f"FAIL: {what}")
        return condition

    def file(self, name, accepted, note=""):
        """One line per kind of file: accepted only when every file of that kind was."""
        before, _ = self.files.get(name, (True, ""))
        self.files[name] = (before and accepted, note)


def generate(proto_dir, gen_dir, protoc):
    protos = []
    for root, _, files in os.walk(os.path.join(proto_dir, "tensorflow")):
        protos += [os.path.relpath(os.path.join(root, f), proto_dir) for f in files if f.endswith(".proto")]
    subprocess.run([protoc, "-I", proto_dir, f"--python_out={gen_dir}"] + sorted(protos), check=True)
    sys.path.insert(0, gen_dir)


def node_of(tensor_name):
    name = tensor_name[1:] if tensor_name.startswith("^") else tensor_name
    return name.split(":")[0]


def check_state(checks, ckpt_dir, pb):
    from google.protobuf import text_format

    state = pb.checkpoint_state.CheckpointState()
    with open(os.path.join(ckpt_dir, "checkpoint")) as f:
        text_format.Parse(f.read(), state)
    paths = list(state.all_model_checkpoint_paths)
    ok = checks.expect(bool(paths) and paths[-1] == state.model_checkpoint_path,
                       f"checkpoint: the newest path {state.model_checkpoint_path!r} ends {paths!r}")
    # TensorFlow's Saver writes the paths as it was given them (absolute for an absolute
    # directory), or relative to the directory; either resolves from the directory.
    ok &= checks.expect(all(os.path.exists(os.path.join(ckpt_dir, p) + ".index") for p in paths),
                        f"checkpoint: paths that do not resolve from the directory: {paths!r}")
    ok &= checks.expect(len(paths) <= 5, f"checkpoint: {len(paths)} checkpoints kept (max_to_keep 5)")
    checks.file("checkpoint", ok)
    return [os.path.join(ckpt_dir, p) for p in paths]


def check_bundle(checks, prefix, pb):
    name = os.path.basename(prefix)
    with open(prefix + ".index", "rb") as f:
        index = f.read()
    try:
        entries = tf_formats.read_table(index)
    except tf_formats.FormatError as e:
        checks.expect(False, f"{name}.index: {e}")
        checks.file("model.ckpt-N.index", False, str(e))
        return {}
    ok = checks.expect(entries and entries[0][0] == b"", f"{name}.index: the first key is the header's (empty)")
    header = pb.tensor_bundle.BundleHeaderProto()
    header.ParseFromString(entries[0][1])
    ok &= checks.expect(header.num_shards == 1, f"{name}.index: num_shards {header.num_shards}")
    ok &= checks.expect(header.endianness == pb.tensor_bundle.BundleHeaderProto.LITTLE, f"{name}.index: endianness")
    ok &= checks.expect(header.version.producer >= 1, f"{name}.index: version.producer {header.version.producer}")
    checks.file("model.ckpt-N.index", ok)

    data_path = prefix + ".data-00000-of-00001"
    with open(data_path, "rb") as f:
        data = f.read()
    values = {}
    data_ok = True
    for key, value in entries[1:]:
        entry = pb.tensor_bundle.BundleEntryProto()
        entry.ParseFromString(value)
        key = key.decode()
        data_ok &= checks.expect(entry.shard_id == 0, f"{name}: {key} in shard {entry.shard_id}")
        chunk = data[entry.offset:entry.offset + entry.size]
        data_ok &= checks.expect(len(chunk) == entry.size, f"{name}: {key} [{entry.offset}, +{entry.size}) past the data end")
        data_ok &= checks.expect(tf_formats.masked_crc32c(chunk) == entry.crc32c,
                                 f"{name}: {key}'s bytes do not match its masked CRC-32C")
        values[key] = (entry, chunk)
    if "global_step" in values:
        entry, chunk = values["global_step"]
        step = int(name.rsplit("-", 1)[1])
        data_ok &= checks.expect(entry.dtype == pb.types.DT_INT64 and struct.unpack("<q", chunk)[0] == step,
                                 f"{name}: global_step holds {chunk!r}, not {step}")
    checks.file("model.ckpt-N.data-00000-of-00001", data_ok)
    return values


def check_graph(checks, graph, what, variables=None):
    nodes = {n.name: n for n in graph.node}
    ok = checks.expect(graph.versions.producer > 0, f"{what}: versions.producer is unset")
    for n in graph.node:
        for i in n.input:
            ok &= checks.expect(node_of(i) in nodes, f"{what}: node {n.name} reads {i}, which is not in the graph")
    save = nodes.get("save/SaveV2")
    restore = nodes.get("save/RestoreV2")
    ok &= checks.expect(save is not None and save.op == "SaveV2", f"{what}: no SaveV2 node save/SaveV2")
    ok &= checks.expect(restore is not None and restore.op == "RestoreV2", f"{what}: no RestoreV2 node save/RestoreV2")
    ok &= checks.expect(not any(n.op == "Placeholder" and n.name.startswith("save/") for n in graph.node),
                        f"{what}: the saver feeds Placeholders")
    if save is not None and restore is not None:
        names = nodes[node_of(save.input[1])].attr["value"].tensor.string_val
        ok &= checks.expect(save.input[0] == "save/Const" and list(save.input[3:]) == [n.decode() for n in names],
                            f"{what}: SaveV2 saves {list(save.input[3:])} under {list(names)}")
        if variables is not None:
            ok &= checks.expect(sorted(n.decode() for n in names) == sorted(variables),
                                f"{what}: SaveV2 names {list(names)}, the checkpoint holds {sorted(variables)}")
        restore_all = nodes.get("save/restore_all")
        ok &= checks.expect(restore_all is not None and restore_all.op == "NoOp", f"{what}: no save/restore_all NoOp")
        if restore_all is not None:
            assigned = []
            for control in restore_all.input:
                assign = nodes[node_of(control)]
                ok &= checks.expect(assign.op == "Assign" and node_of(assign.input[1]) == "save/RestoreV2",
                                    f"{what}: {assign.name} is not an Assign from save/RestoreV2")
                assigned.append(assign.input[0])
            ok &= checks.expect(sorted(assigned) == sorted(n.decode() for n in names),
                                f"{what}: restore_all assigns {assigned}")
    ok &= checks.expect(any(n.device.startswith("/job:ps") for n in graph.node),
                        f"{what}: no node carries a /job:ps device")
    return ok, nodes


def check_meta(checks, prefix, pb, variables):
    name = os.path.basename(prefix) + ".meta"
    meta = pb.meta_graph.MetaGraphDef()
    with open(prefix + ".meta", "rb") as f:
        meta.ParseFromString(f.read())
    ok, nodes = check_graph(checks, meta.graph_def, name, variables)
    saver = meta.saver_def
    for tensor in (saver.filename_tensor_name, saver.save_tensor_name, saver.restore_op_name):
        ok &= checks.expect(bool(tensor) and node_of(tensor) in nodes, f"{name}: saver_def names {tensor!r}")
    ok &= checks.expect(saver.filename_tensor_name == "save/Const:0", f"{name}: filename tensor {saver.filename_tensor_name}")
    ok &= checks.expect(nodes.get(node_of(saver.save_tensor_name)) is not None and
                        "^save/SaveV2" in nodes[node_of(saver.save_tensor_name)].input,
                        f"{name}: the save tensor does not wait for save/SaveV2")
    ok &= checks.expect(saver.version == pb.saver.SaverDef.V2 and not saver.sharded and saver.max_to_keep == 5,
                        f"{name}: saver_def {saver}")
    ok &= checks.expect(bool(meta.meta_info_def.tensorflow_version), f"{name}: meta_info_def.tensorflow_version unset")
    declared = {op.name for op in meta.meta_info_def.stripped_op_list.op}
    ok &= checks.expect({n.op for n in meta.graph_def.node} <= declared,
                        f"{name}: stripped_op_list lacks {sorted({n.op for n in meta.graph_def.node} - declared)}")
    collections = meta.collection_def
    for key in ("variables", "trainable_variables", "global_step", "train_op"):
        ok &= checks.expect(key in collections, f"{name}: no collection {key!r} (has {sorted(collections)})")
    for key in ("variables", "trainable_variables", "global_step", "local_variables"):
        if key not in collections:
            continue
        for raw in collections[key].bytes_list.value:
            var = pb.variable.VariableDef()
            var.ParseFromString(raw)
            for tensor in (var.variable_name, var.initializer_name, var.snapshot_name, var.initial_value_name):
                ok &= checks.expect(bool(tensor) and node_of(tensor) in nodes,
                                    f"{name}: {key} entry {var.variable_name} names {tensor!r}")
            ok &= checks.expect(var.trainable == (key == "trainable_variables" or
                                                  var.variable_name in trainable_names(collections, pb)),
                                f"{name}: {key} entry {var.variable_name} trainable={var.trainable}")
    if "variables" in collections:
        saved = set()
        for raw in collections["variables"].bytes_list.value:
            var = pb.variable.VariableDef()
            var.ParseFromString(raw)
            saved.add(node_of(var.variable_name))
        ok &= checks.expect(saved == set(variables), f"{name}: variables {sorted(saved)} vs checkpoint {sorted(variables)}")
    for key in ("train_op", "summaries"):
        if key in collections:
            for entry in collections[key].node_list.value:
                ok &= checks.expect(node_of(entry) in nodes, f"{name}: {key} names {entry!r}, not in the graph")
    checks.file("model.ckpt-N.meta", ok)


def trainable_names(collections, pb):
    out = set()
    for raw in collections["trainable_variables"].bytes_list.value if "trainable_variables" in collections else []:
        var = pb.variable.VariableDef()
        var.ParseFromString(raw)
        out.add(var.variable_name)
    return out


def scalar_values(ckpt_dir, pb, tag):
    """(step, value) of every scalar summary with `tag` in the directory's event files."""
    values = []
    for path in sorted(glob.glob(os.path.join(ckpt_dir, "events.out.tfevents.*"))):
        with open(path, "rb") as f:
            for record in tf_formats.read_records(f.read()):
                event = pb.event.Event()
                event.ParseFromString(record)
                if event.WhichOneof("what") == "summary":
                    values += [(event.step, v.simple_value) for v in event.summary.value
                               if v.tag == tag and v.WhichOneof("value") == "simple_value"]
    return values


def check_events(checks, ckpt_dir, pb):
    files = sorted(glob.glob(os.path.join(ckpt_dir, "events.out.tfevents.*")))
    if not checks.expect(files, f"no events.out.tfevents.* in {ckpt_dir}"):
        checks.file("events.out.tfevents.*", False, "missing")
        return
    ok = True
    kinds = set()
    losses = []
    for path in files:
        with open(path, "rb") as f:
            raw = f.read()
        try:
            records = tf_formats.read_records(raw)
        except tf_formats.FormatError as e:
            ok &= checks.expect(False, f"{os.path.basename(path)}: {e}")
            continue
        for i, record in enumerate(records):
            event = pb.event.Event()
            event.ParseFromString(record)
            kind = event.WhichOneof("what")
            kinds.add(kind)
            if i == 0:
                ok &= checks.expect(kind == "file_version" and event.file_version.startswith("brain.Event:"),
                                    f"{os.path.basename(path)}: the first event is {kind}, not file_version")
            if kind == "graph_def":
                graph = pb.graph.GraphDef()
                graph.ParseFromString(event.graph_def)
                graph_ok, _ = check_graph(checks, graph, "event graph_def")
                ok &= graph_ok
            elif kind == "meta_graph_def":
                meta = pb.meta_graph.MetaGraphDef()
                meta.ParseFromString(event.meta_graph_def)
                ok &= checks.expect(meta.saver_def.restore_op_name == "save/restore_all",
                                    "event meta_graph_def: saver_def")
            elif kind == "summary":
                for value in event.summary.value:
                    if value.tag == "loss":
                        ok &= checks.expect(value.WhichOneof("value") == "simple_value", "loss is not a simple_value")
                        losses.append((event.step, value.simple_value))
    ok &= checks.expect({"file_version", "graph_def", "meta_graph_def", "summary"} <= kinds,
                        f"event kinds {sorted(k for k in kinds if k)}")
    ok &= checks.expect(len(losses) >= 2, f"{len(losses)} scalar summaries with tag 'loss'")
    checks.file("events.out.tfevents.*", ok, f"{len(losses)} loss scalars")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--clab", required=True)
    parser.add_argument("--protoc", default="protoc")
    parser.add_argument("--project", required=True, help="examples/projects/linear-regression.clab")
    parser.add_argument("--classifier_project", required=True, help="examples/projects/digits-mlp.clab")
    args = parser.parse_args()

    proto_dir = os.environ.get("CLAB_TF_PROTO_DIR", "")
    missing = [p for p in NEEDED_PROTOS if not proto_dir or not os.path.exists(os.path.join(proto_dir, p))]
    if missing:
        print(f"SKIPPED: TensorFlow's .proto files are not in CLAB_TF_PROTO_DIR={proto_dir!r} (lacking {missing})")
        return SKIPPED

    work = tempfile.mkdtemp(prefix="clab_tf_files_")
    try:
        gen = os.path.join(work, "gen")
        os.makedirs(gen)
        generate(proto_dir, gen, args.protoc)
        from tensorflow.core.framework import graph_pb2, types_pb2, variable_pb2
        from tensorflow.core.protobuf import meta_graph_pb2, saver_pb2, tensor_bundle_pb2
        from tensorflow.core.util import event_pb2
        from tensorflow.python.training import checkpoint_state_pb2

        pb = argparse.Namespace(graph=graph_pb2, types=types_pb2, variable=variable_pb2, meta_graph=meta_graph_pb2,
                                saver=saver_pb2, tensor_bundle=tensor_bundle_pb2, event=event_pb2,
                                checkpoint_state=checkpoint_state_pb2)
        ckpt_dir = os.path.join(work, "ckpt")

        def train(last_step):
            return subprocess.run([args.clab, "train", args.project, "--workers", "1", "--ps", "1", "--last_step",
                                   str(last_step), "--save_checkpoint_steps", "10", "--checkpoint_dir", ckpt_dir,
                                   "--timeout", "150"],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=200)

        # Two runs into one directory: the second restores the first one's newest checkpoint
        # through the saver's graph and continues from step 60.
        for last_step in (60, 120):
            run = train(last_step)
            if run.returncode != 0:
                print(run.stdout[-4000:])
                print(f"FAIL: clab train --last_step {last_step} exited {run.returncode}")
                return 1
        checks = Checks()
        ran = re.search(r"Worker 0 ran (\d+) steps", run.stdout)
        checks.expect(ran is not None and int(ran.group(1)) <= 70,
                      f"the second run did not continue from step 60: {ran.group(0) if ran else run.stdout[-800:]}")
        prefixes = check_state(checks, ckpt_dir, pb)
        variables = None
        for prefix in prefixes:
            values = check_bundle(checks, prefix, pb)
            variables = sorted(values)
            check_meta(checks, prefix, pb, variables)
        listed = {os.path.basename(p) for p in prefixes}
        leftovers = [f for f in os.listdir(ckpt_dir) if f.startswith("model.ckpt-") and f.split(".")[1] not in
                     {p.split(".")[1] for p in listed}]
        checks.expect(not leftovers, f"files of dropped checkpoints remain: {sorted(leftovers)}")
        graph_text = os.path.join(ckpt_dir, "graph.pbtxt")
        from google.protobuf import text_format

        graph = graph_pb2.GraphDef()
        with open(graph_text) as f:
            text_format.Parse(f.read(), graph)
        ok, _ = check_graph(checks, graph, "graph.pbtxt", variables)
        checks.file("graph.pbtxt", ok)
        check_events(checks, ckpt_dir, pb)

        # A classifier's event files carry its loss and its minibatch accuracy as scalars.
        digits_dir = os.path.join(work, "digits")
        digits = subprocess.run([args.clab, "train", args.classifier_project, "--workers", "1", "--ps", "1",
                                 "--last_step", "250", "--checkpoint_dir", digits_dir, "--timeout", "150"],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=200)
        if checks.expect(digits.returncode == 0, f"clab train digits exited {digits.returncode}: "
                         f"{digits.stdout[-1500:]}"):
            accuracy = scalar_values(digits_dir, pb, "accuracy")
            loss = scalar_values(digits_dir, pb, "loss")
            ok = checks.expect(len(accuracy) >= 2 and len(loss) >= 2,
                               f"{len(accuracy)} accuracy and {len(loss)} loss scalars in the classifier's events")
            ok &= checks.expect(all(0.0 <= v <= 1.0 for _, v in accuracy), f"accuracy out of [0, 1]: {accuracy}")
            checks.file("events.out.tfevents.* (classifier)", ok, f"{len(accuracy)} accuracy, {len(loss)} loss")

        show = subprocess.run([args.clab, "graph", "show", prefixes[-1] + ".meta"], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=60)
        checks.expect(show.returncode == 0,
                      f"clab graph show {os.path.basename(prefixes[-1])}.meta exited {show.returncode}: "
                      f"{show.stdout[-600:]}")

        print("Files of the run, read with TensorFlow's message definitions and independent framing readers:")
        for name, (accepted, note) in checks.files.items():
            print(f"  {name:36} {'accepted' if accepted else 'REJECTED'} {note}")
        if checks.failures:
            print(f"{len(checks.failures)} check(s) failed")
            return 1
        print("all files accepted")
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
