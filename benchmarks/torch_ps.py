#!/usr/bin/env python3
"""The PyTorch peer of `clab bench train`: a parameter server over PyTorch RPC.

The same training as ClusterLab's benchmark: the digits MLP 64-H-10 (ReLU, softmax
cross-entropy, weights drawn with He scaling and zero biases), minibatches of 32, plain
gradient descent at 0.1, asynchronous, on resources/data/digits.csv.gz split and scaled as
ClusterLab does (every 5th row held out; features scaled with the training rows' mean and
deviation) and sharded by worker index (training row i goes to worker i % N), a fixed number
of global steps shared between the workers.

One ps process holds the parameters; N worker processes each compute the gradients of a
minibatch and send them in one RPC that applies them and returns the new parameters (push
and pull in one call). All processes talk over TCP on 127.0.0.1 (TensorPipe's "uv" transport,
no shared memory). Each process uses --threads intra-op threads (1 by default: a task per
process, as on a cluster).

Prints the workers' and the ps's lines, then one line
    RESULT {"steps": ..., "seconds": ..., "steps_per_second": ..., "cpu_us_per_step": ...,
            "context_switches_per_step": ..., "accuracy": ..., "workers": ...}
where seconds run from the first worker's first step to the last worker's last, and CPU time
and context switches (getrusage) cover every process over its steps.

    python3 benchmarks/torch_ps.py --workers 2 --steps 3000 --data resources/data/digits.csv.gz
"""

import argparse
import csv
import gzip
import json
import math
import os
import random
import resource
import signal
import socket
import subprocess
import sys
import threading
import time

import torch
import torch.distributed.rpc as rpc
import torch.nn.functional as F


def parse_args(argv):
    parser = argparse.ArgumentParser(description="PyTorch RPC parameter server peer of `clab bench train`")
    parser.add_argument("--workers", type=int, default=1, help="worker processes (1 to 16)")
    parser.add_argument("--steps", type=int, default=3000, help="global steps, shared between the workers")
    parser.add_argument("--hidden", type=int, default=128, help="units of the hidden layer")
    parser.add_argument("--batch", type=int, default=32, help="examples per minibatch")
    parser.add_argument("--learning_rate", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--threads", type=int, default=1, help="intra-op threads per process")
    parser.add_argument("--data", required=True, help="digits.csv.gz (resources/data)")
    # Set by the launcher for the processes it starts.
    parser.add_argument("--role", choices=["launcher", "ps", "worker"], default="launcher", help=argparse.SUPPRESS)
    parser.add_argument("--task_index", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if not 1 <= args.workers <= 16:
        parser.error(f"--workers {args.workers}: want 1 to 16")
    if args.steps < 1 or args.hidden < 1 or args.batch < 1 or args.threads < 1:
        parser.error("--steps, --hidden, --batch and --threads must be at least 1")
    return args


# ---- data: the same split, scaling and shards as ClusterLab's LoadClassificationCsv / Shard

def load_digits(path, held_out_every=5):
    """(train_x, train_y, held_x, held_y, classes) as ClusterLab's LoadClassificationCsv."""
    try:
        with gzip.open(path, "rt", newline="") as f:
            rows = list(csv.reader(f))
    except OSError as error:
        sys.exit(f"torch_ps.py: cannot read --data '{path}': {error}")
    header, rows = rows[0], [r for r in rows[1:] if r]
    d = len(header) - 1
    train, held = [], []
    for i, row in enumerate(rows):
        if len(row) != d + 1:
            sys.exit(f"torch_ps.py: {path}: row {i + 2} has {len(row)} fields, the header {d + 1}")
        (held if i % held_out_every == held_out_every - 1 else train).append([float(v) for v in row])
    mean = [sum(r[j] for r in train) / len(train) for j in range(d)]
    deviation = []
    for j in range(d):
        variance = sum((r[j] - mean[j]) ** 2 for r in train) / len(train)
        deviation.append(math.sqrt(variance) if variance > 0 else 1.0)

    def tensors(part):
        x = torch.tensor([[(r[j] - mean[j]) / deviation[j] for j in range(d)] for r in part], dtype=torch.float32)
        y = torch.tensor([int(r[d]) for r in part], dtype=torch.int64)
        return x, y

    train_x, train_y = tensors(train)
    held_x, held_y = tensors(held)
    return train_x, train_y, held_x, held_y, int(max(train_y.max(), held_y.max())) + 1


class MinibatchSampler:
    """Minibatches drawn in a shuffled order, a new order each pass (as ClusterLab's)."""

    def __init__(self, size, batch, seed):
        self.order = list(range(size))
        self.next = size
        self.batch = batch
        self.random = random.Random(seed)

    def rows(self):
        rows = []
        for _ in range(self.batch):
            if self.next == len(self.order):
                self.random.shuffle(self.order)
                self.next = 0
            rows.append(self.order[self.next])
            self.next += 1
        return torch.tensor(rows, dtype=torch.int64)


def forward(params, x):
    w1, b1, w2, b2 = params
    return F.relu(x @ w1 + b1) @ w2 + b2


def usage():
    u = resource.getrusage(resource.RUSAGE_SELF)
    return (u.ru_utime + u.ru_stime) * 1e6, u.ru_nvcsw + u.ru_nivcsw


# ---- the ps: parameters, one call that applies gradients and returns the new values

class ParameterServer:
    def __init__(self, args, features, classes):
        generator = torch.Generator().manual_seed(args.seed)

        def he(fan_in, fan_out):
            return torch.randn(fan_in, fan_out, generator=generator) * math.sqrt(2.0 / fan_in)

        self.params = [he(features, args.hidden), torch.zeros(args.hidden), he(args.hidden, classes),
                       torch.zeros(classes)]
        self.learning_rate = args.learning_rate
        self.global_step = 0
        self.lock = threading.Lock()
        self.barrier = threading.Barrier(args.workers, action=self.started)
        self.done = 0
        self.workers = args.workers
        self.start_usage = None
        self.end_usage = None
        self.all_done = threading.Event()

    def started(self):
        self.start_usage = usage()

    def pull(self):
        with self.lock:
            return [p.clone() for p in self.params]

    def push_pull(self, grads):
        with self.lock:
            for p, g in zip(self.params, grads):
                p.sub_(g, alpha=self.learning_rate)
            self.global_step += 1
            return [p.clone() for p in self.params]

    def finished(self):
        with self.lock:
            self.done += 1
            if self.done == self.workers:
                self.end_usage = usage()
                self.all_done.set()


PS = None  # the ParameterServer, in the ps process


def ps_pull():
    return PS.pull()


def ps_push_pull(grads):
    return PS.push_pull(grads)


def ps_ready():
    PS.barrier.wait()


def ps_done():
    PS.finished()


def backend_options(args):
    return rpc.TensorPipeRpcBackendOptions(init_method=f"tcp://127.0.0.1:{args.port}",
                                           num_worker_threads=max(16, args.workers + 4), rpc_timeout=300,
                                           _transports=["uv"], _channels=["basic"])


def run_ps(args):
    global PS
    train_x, _, _, _, classes = load_digits(args.data)
    PS = ParameterServer(args, train_x.shape[1], classes)
    rpc.init_rpc("ps", rank=0, world_size=args.workers + 1, rpc_backend_options=backend_options(args))
    PS.all_done.wait()
    rpc.shutdown()
    cpu = PS.end_usage[0] - PS.start_usage[0]
    switches = PS.end_usage[1] - PS.start_usage[1]
    print("RESULT-PS " + json.dumps({"cpu_us": cpu, "context_switches": switches, "global_step": PS.global_step}),
          flush=True)


def run_worker(args):
    train_x, train_y, held_x, held_y, _ = load_digits(args.data)
    k, n = args.task_index, args.workers
    shard = torch.arange(k, train_x.shape[0], n)
    shard_x, shard_y = train_x[shard], train_y[shard]
    steps = args.steps // n + (1 if k < args.steps % n else 0)
    sampler = MinibatchSampler(shard_x.shape[0], args.batch, args.seed + 100 + k)
    rpc.init_rpc(f"worker{k}", rank=k + 1, world_size=n + 1, rpc_backend_options=backend_options(args))
    params = rpc.rpc_sync("ps", ps_pull)
    rpc.rpc_sync("ps", ps_ready)
    start, start_usage = time.monotonic(), usage()
    for _ in range(steps):
        rows = sampler.rows()
        params = [p.requires_grad_() for p in params]
        loss = F.cross_entropy(forward(params, shard_x[rows]), shard_y[rows])
        grads = torch.autograd.grad(loss, params)
        params = rpc.rpc_sync("ps", ps_push_pull, args=(list(grads),))
    end, end_usage = time.monotonic(), usage()
    rpc.rpc_sync("ps", ps_done)
    accuracy = None
    if k == 0:
        with torch.no_grad():
            final = rpc.rpc_sync("ps", ps_pull)
            accuracy = (forward(final, held_x).argmax(dim=1) == held_y).float().mean().item()
    rpc.shutdown()
    print("RESULT-WORKER " + json.dumps({"task": k, "steps": steps, "start": start, "end": end,
                                         "cpu_us": end_usage[0] - start_usage[0],
                                         "context_switches": end_usage[1] - start_usage[1],
                                         "accuracy": accuracy}), flush=True)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def die_with_parent():
    """In a started process: killed when the launcher ends, however it ends (Linux prctl)."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def launch(args, argv):
    """Starts the ps and the workers as processes of their own and sums up what they report."""
    # SIGTERM ends the launcher through the `finally` below, which stops what it started.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if not os.path.exists(args.data):
        sys.exit(f"torch_ps.py: --data '{args.data}' does not exist")
    env = dict(os.environ, TP_SOCKET_IFNAME="lo", GLOO_SOCKET_IFNAME="lo", MASTER_ADDR="127.0.0.1")
    port = free_port()
    script = os.path.abspath(__file__)
    roles = [("ps", 0)] + [("worker", k) for k in range(args.workers)]
    children = []
    for role, index in roles:
        command = [sys.executable, script] + argv + ["--role", role, "--task_index", str(index), "--port", str(port)]
        children.append(subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True,
                                         preexec_fn=die_with_parent))
    outputs = []
    failed = False
    try:
        for (role, index), child in zip(roles, children):
            out, _ = child.communicate(timeout=3600)
            outputs.append(out)
            if child.returncode != 0:
                print(f"torch_ps.py: {role} {index} exited with status {child.returncode}", file=sys.stderr)
                failed = True
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.wait()
    if failed:
        sys.exit(1)
    ps_result, workers = None, []
    for out in outputs:
        for line in out.splitlines():
            print(line)
            if line.startswith("RESULT-PS "):
                ps_result = json.loads(line[len("RESULT-PS "):])
            elif line.startswith("RESULT-WORKER "):
                workers.append(json.loads(line[len("RESULT-WORKER "):]))
    if ps_result is None or len(workers) != args.workers:
        sys.exit("torch_ps.py: a process did not report its result")
    steps = sum(w["steps"] for w in workers)
    seconds = max(w["end"] for w in workers) - min(w["start"] for w in workers)
    cpu = ps_result["cpu_us"] + sum(w["cpu_us"] for w in workers)
    switches = ps_result["context_switches"] + sum(w["context_switches"] for w in workers)
    accuracy = next(w["accuracy"] for w in workers if w["task"] == 0)
    print("RESULT " + json.dumps({"steps": steps, "seconds": seconds, "steps_per_second": steps / seconds,
                                  "cpu_us_per_step": cpu / steps, "context_switches_per_step": switches / steps,
                                  "accuracy": accuracy, "workers": args.workers,
                                  "torch": torch.__version__}), flush=True)


def main():
    argv = sys.argv[1:]
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    if args.role == "launcher":
        launch(args, argv)
    elif args.role == "ps":
        run_ps(args)
    else:
        run_worker(args)


if __name__ == "__main__":
    main()
