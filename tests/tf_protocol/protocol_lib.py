"""Shared by the TensorFlow protocol tests: Python stubs generated at test time from
TensorFlow's own .proto files (never ClusterLab's copies), and a cluster of `clab server`
processes on free loopback ports that the test starts and stops itself.

TensorFlow's .proto files stay outside the repository (tests/tf_corpus/SOURCES.md names
them); the folder comes from $CLAB_TF_PROTO_DIR. Without it, or without the service
definitions, a test exits with 77 and CTest reports it skipped."""

import os
import queue
import signal
import socket
import subprocess
import sys
import threading

SKIPPED = 77
SERVICE_PROTOS = [
    "tensorflow/core/protobuf/master_service.proto",
    "tensorflow/core/protobuf/worker_service.proto",
]


def service_stub(channel, service_module, service_name):
    """A stub for a service of TensorFlow's master_service.proto or worker_service.proto, on
    the paths TensorFlow's servers and clients use: its gRPC code names the methods
    "/tensorflow.MasterService/<Method>" (without the proto package's ".grpc"). The method
    names and message types come from the generated descriptor."""
    from google.protobuf import symbol_database

    service = service_module.DESCRIPTOR.services_by_name[service_name]
    database = symbol_database.Default()
    stub = type(service_name + "Stub", (), {})()
    for method in service.methods:
        request = database.GetSymbol(method.input_type.full_name)
        response = database.GetSymbol(method.output_type.full_name)
        setattr(stub, method.name, channel.unary_unary(
            f"/tensorflow.{service_name}/{method.name}",
            request_serializer=request.SerializeToString,
            response_deserializer=response.FromString))
    return stub


class ProtocolError(Exception):
    """The environment is not as the test needs it (not a failure of ClusterLab)."""


def argument_parser(description):
    """The flags every protocol test takes: the clab program, where to generate the modules,
    protoc and the gRPC Python plugin."""
    import argparse

    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--clab", required=True)
    parser.add_argument("--gen", required=True, help="folder for the generated Python modules")
    parser.add_argument("--protoc", default="protoc")
    parser.add_argument("--grpc_plugin", default="/usr/bin/grpc_python_plugin")
    return parser


def proto_dir_or_skip():
    folder = os.environ.get("CLAB_TF_PROTO_DIR", "")
    if not folder:
        print("SKIPPED: CLAB_TF_PROTO_DIR is not set (TensorFlow's .proto files, see tests/tf_corpus/SOURCES.md)")
        sys.exit(SKIPPED)
    missing = [p for p in SERVICE_PROTOS if not os.path.exists(os.path.join(folder, p))]
    if missing:
        print(f"SKIPPED: {folder} lacks {', '.join(missing)}")
        sys.exit(SKIPPED)
    return folder


def generate_stubs(proto_dir, gen_dir, protoc, grpc_plugin):
    """Writes *_pb2.py and *_pb2_grpc.py for every .proto under proto_dir/tensorflow into
    gen_dir and puts gen_dir first on sys.path."""
    protos = []
    for root, _, files in os.walk(os.path.join(proto_dir, "tensorflow")):
        protos += [os.path.relpath(os.path.join(root, f), proto_dir) for f in files if f.endswith(".proto")]
    os.makedirs(gen_dir, exist_ok=True)
    cmd = [protoc, "-I", proto_dir, f"--python_out={gen_dir}", f"--grpc_python_out={gen_dir}",
           f"--plugin=protoc-gen-grpc_python={grpc_plugin}"] + sorted(protos)
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise ProtocolError(f"protoc failed on {proto_dir}:\n{done.stderr}")
    sys.path.insert(0, gen_dir)


def free_ports(count):
    """Distinct loopback ports nothing listens on now: all bound to port 0 at once, then freed."""
    sockets = []
    for _ in range(count):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.bind(("127.0.0.1", 0))
        sockets.append(s)
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


class ServerProcess:
    """One `clab server` task; its output is collected by a thread so it never blocks."""

    def __init__(self, clab, cluster_spec, job, task):
        self.name = f"/job:{job}/replica:0/task:{task}"
        self.lines = queue.Queue()
        self.output = []
        self.process = subprocess.Popen(
            [clab, "server", "--cluster", cluster_spec, "--job_name", job, "--task_index", str(task)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def wait_for(self, text, timeout_s=30):
        """Waits for a line containing `text`; False when the process ended or at the timeout."""
        while True:
            try:
                line = self.lines.get(timeout=timeout_s)
            except queue.Empty:
                return False
            if line is None:
                return False
            self.output.append(line)
            if text in line:
                return True

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class Cluster:
    """A ps and `workers` worker tasks of `clab server` on loopback; use with `with`."""

    def __init__(self, clab, workers=1):
        ports = free_ports(1 + workers)
        self.addresses = {"ps": [f"127.0.0.1:{ports[0]}"],
                          "worker": [f"127.0.0.1:{p}" for p in ports[1:]]}
        self.spec = ";".join(f"{job}={','.join(addrs)}" for job, addrs in self.addresses.items())
        self.servers = []
        try:
            for job, addrs in self.addresses.items():
                for task in range(len(addrs)):
                    self.servers.append(ServerProcess(clab, self.spec, job, task))
            for server in self.servers:
                if not server.wait_for("Serving /job:"):
                    raise ProtocolError(f"{server.name} did not start:\n{''.join(server.output)}")
        except BaseException:
            self.stop()
            raise

    def address(self, job, task=0):
        return self.addresses[job][task]

    def stop(self):
        for server in self.servers:
            server.stop()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
        return False
