"""A client that calls, sits idle, and calls again keeps its connection: a ClusterLab server
pings a client only while the client has calls in flight, so an idle Python client (whose
process polls an idle channel only every few seconds) is never cut off for answering late.

Drives a `clab server` task with stubs generated from TensorFlow's own .proto files (or,
where they are absent, from ClusterLab's copies in proto/, whose calls have the same paths):
ListDevices on the master service, GetStatus on the worker service, each call after an idle
period on one channel. Exit 0 when every call succeeds and the connection stayed up, 1
otherwise."""

import os
import sys

import protocol_lib

TCP_STATES = {"01": "ESTABLISHED", "06": "TIME_WAIT", "07": "CLOSE", "08": "CLOSE_WAIT", "09": "LAST_ACK"}


def own_connections(server_port):
    """State of each TCP connection this process holds to `server_port`, by local port: read
    from /proc, so looking does not make the client poll its channel."""
    inodes = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[len("socket:["):-1])
    states = {}
    for table in ("/proc/self/net/tcp", "/proc/self/net/tcp6"):
        if not os.path.exists(table):
            continue
        with open(table) as rows:
            next(rows)
            for row in rows:
                fields = row.split()
                local, remote, state, inode = fields[1], fields[2], fields[3], fields[9]
                if inode in inodes and int(remote.split(":")[1], 16) == server_port:
                    states[int(local.split(":")[1], 16)] = TCP_STATES.get(state, state)
    return states


def main():
    parser = protocol_lib.argument_parser(__doc__)
    parser.add_argument("--idle_s", type=float, default=10.0, help="idle time between two calls")
    parser.add_argument("--rounds", type=int, default=2, help="idle periods")
    parser.add_argument("--own_protos", help="ClusterLab's proto/ folder, used without TensorFlow's")
    args = parser.parse_args()

    import os
    proto_dir = os.environ.get("CLAB_TF_PROTO_DIR", "")
    if proto_dir:
        proto_dir = protocol_lib.proto_dir_or_skip()
    elif args.own_protos:
        print(f"TensorFlow's .proto files are not given (CLAB_TF_PROTO_DIR); using {args.own_protos}")
        proto_dir = args.own_protos
    else:
        protocol_lib.proto_dir_or_skip()
    protocol_lib.generate_stubs(proto_dir, args.gen, args.protoc, args.grpc_plugin)
    import grpc
    import threading
    if proto_dir == args.own_protos:
        from tensorflow import master_pb2, worker_pb2
        master_service_pb2, worker_service_pb2 = master_pb2, worker_pb2
    else:
        from tensorflow.core.protobuf import master_pb2, master_service_pb2, worker_pb2, worker_service_pb2

    failures = []
    with protocol_lib.Cluster(args.clab, workers=1) as cluster:
        channel = grpc.insecure_channel(cluster.address("worker"))
        master = protocol_lib.service_stub(channel, master_service_pb2, "MasterService")
        worker = protocol_lib.service_stub(channel, worker_service_pb2, "WorkerService")
        calls = [("ListDevices", lambda: master.ListDevices(master_pb2.ListDevicesRequest(), timeout=30)),
                 ("GetStatus", lambda: worker.GetStatus(worker_pb2.GetStatusRequest(), timeout=30))]
        idle = threading.Event()  # never set: the wait is the idle period under test
        server_port = int(cluster.address("worker").split(":")[1])
        connection = None
        for round_index in range(args.rounds + 1):
            if round_index > 0:
                idle.wait(args.idle_s)
                # The connection the last call used must still be up: a server that cut it
                # leaves it in CLOSE_WAIT here (or gone), whatever the next call then meets.
                state = own_connections(server_port).get(connection, "gone")
                if state != "ESTABLISHED":
                    print(f"after {args.idle_s:.0f} s idle the server had closed the connection (client side: {state})")
                    failures.append("connection")
            name, call = calls[round_index % len(calls)]
            try:
                call()
                established = [port for port, st in own_connections(server_port).items() if st == "ESTABLISHED"]
                connection = established[0] if len(established) == 1 else None
                print(f"call {round_index} ({name}) after {args.idle_s if round_index else 0:.0f} s idle: OK")
            except grpc.RpcError as error:
                print(f"call {round_index} ({name}): {error.code().name}: {error.details()}")
                failures.append(name)
        channel.close()
    if failures:
        print(f"FAILED: {len(failures)} failure(s) on an idle connection: {', '.join(failures)}")
        return 1
    print("all calls succeeded")
    return 0


if __name__ == "__main__":
    sys.exit(main())
