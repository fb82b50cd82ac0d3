"""An independent client of ClusterLab's master and worker services, generated from
TensorFlow's own .proto files: drives every call of TensorFlow's MasterService and
WorkerService against a cluster of `clab server` processes (a ps and a worker on loopback)
and checks the answers and the status codes TensorFlow's servers give.

Exit 0 when every check holds, 1 otherwise, 77 when TensorFlow's .proto files are absent.
Prints one line per check and a table of the calls with their outcome."""

import sys

import protocol_lib


class Checks:
    """Runs calls, records for each RPC how it answered, and the checks that failed."""

    def __init__(self, grpc):
        self.grpc = grpc
        self.outcomes = {}
        self.failures = []

    def _note(self, rpc, outcome):
        self.outcomes.setdefault(rpc, [])
        if outcome not in self.outcomes[rpc]:
            self.outcomes[rpc].append(outcome)

    def ok(self, rpc, call, what):
        try:
            response = call()
        except self.grpc.RpcError as error:
            self.fail(f"{rpc} ({what}): expected OK, got {error.code().name}: {error.details()}")
            return None
        self._note(rpc, "OK")
        print(f"ok   {rpc}: {what}")
        return response

    def code(self, rpc, call, expected, what, contains=""):
        try:
            call()
        except self.grpc.RpcError as error:
            got = error.code().name
            self._note(rpc, got)
            if got != expected:
                self.fail(f"{rpc} ({what}): expected {expected}, got {got}: {error.details()}")
            elif contains and contains not in (error.details() or ""):
                self.fail(f"{rpc} ({what}): {got} as expected, but the message lacks '{contains}': {error.details()}")
            else:
                print(f"ok   {rpc}: {what} -> {got}: {error.details()}")
            return
        self._note(rpc, "OK")
        self.fail(f"{rpc} ({what}): expected {expected}, got OK")

    def expect(self, condition, what):
        if condition:
            print(f"ok   {what}")
        else:
            self.fail(what)

    def fail(self, what):
        print(f"FAIL {what}")
        self.failures.append(what)


def drive_master(checks, master, worker_service_of, cluster, pb):
    """Every MasterService call, with TensorFlow's answers and error codes."""
    from tf_graphs import model_graph, scalar, value_of

    ps_task, worker_task = "/job:ps/replica:0/task:0", "/job:worker/replica:0/task:0"
    graph = model_graph(ps_task, worker_task)
    base = pb.graph_pb2.GraphDef()
    base.node.extend([n for n in graph.node if n.name not in ("r2", "v_read")])
    created = checks.ok("CreateSession", lambda: master.CreateSession(pb.master_pb2.CreateSessionRequest(
        graph_def=base, target=f"grpc://{cluster.address('worker')}")), "a graph with a variable on the ps")
    if created is None:
        return
    handle = created.session_handle
    checks.expect(handle != "", "CreateSession answers a session handle")

    extra = pb.graph_pb2.GraphDef()
    extra.node.extend([n for n in graph.node if n.name in ("r2", "v_read")])
    extended = checks.ok("ExtendSession", lambda: master.ExtendSession(pb.master_pb2.ExtendSessionRequest(
        session_handle=handle, graph_def=extra, current_graph_version=created.graph_version)), "adds r2 and v_read")
    if extended:
        checks.expect(extended.new_graph_version > created.graph_version, "ExtendSession raises the graph version")
    checks.code("ExtendSession", lambda: master.ExtendSession(pb.master_pb2.ExtendSessionRequest(
        session_handle=handle, graph_def=pb.graph_pb2.GraphDef(), current_graph_version=created.graph_version)),
        "ABORTED", "a stale graph version")
    duplicate = pb.graph_pb2.GraphDef()
    duplicate.node.add().CopyFrom(graph.node[0])
    checks.code("ExtendSession", lambda: master.ExtendSession(pb.master_pb2.ExtendSessionRequest(
        session_handle=handle, graph_def=duplicate,
        current_graph_version=extended.new_graph_version if extended else 0)), "INVALID_ARGUMENT",
        "a node the graph already has", contains=graph.node[0].name)

    devices = checks.ok("ListDevices", lambda: master.ListDevices(pb.master_pb2.ListDevicesRequest(
        session_handle=handle)), "the session's devices")
    if devices:
        names = [d.name for d in list(devices.local_device) + list(devices.remote_device)]
        checks.expect(ps_task + "/device:CPU:0" in names and worker_task + "/device:CPU:0" in names,
                      f"ListDevices names both tasks' CPUs ({names})")
    checks.code("ListDevices", lambda: master.ListDevices(pb.master_pb2.ListDevicesRequest(
        session_handle="no-such-session")), "INVALID_ARGUMENT", "an unknown session (as TensorFlow's master)")

    def feed(name, value):
        return pb.named_tensor_pb2.NamedTensorProto(name=name, tensor=scalar(value))

    def run(**fields):
        return master.RunStep(pb.master_pb2.RunStepRequest(session_handle=handle, **fields), timeout=60)

    checks.ok("RunStep", lambda: run(target=["v_init"]), "runs the ps variable's initializer")
    step = checks.ok("RunStep", lambda: run(feed=[feed("x:0", 1.0), feed("y:0", 2.0)], fetch=["r1:0", "v_inc:0"]),
                     "x + y and v += 1")
    if step:
        checks.expect([value_of(t.tensor) for t in step.tensor] == [3.0, 2.0], "RunStep fetches 3 and 2, in order")
    checks.code("RunStep", lambda: run(fetch=["nope:0"]), "NOT_FOUND", "a fetch not in the graph")
    checks.code("RunStep", lambda: run(fetch=["r1:0"]), "INVALID_ARGUMENT", "a placeholder not fed")
    in_body = checks.ok("RunStep", lambda: run(fetch=["r1:0"], store_errors_in_response_body=True),
                        "store_errors_in_response_body")
    if in_body:
        checks.expect(in_body.status_code == 3 and in_body.status_error_message,
                      f"the error is in the reply body (code {in_body.status_code})")

    setup = checks.ok("PartialRunSetup", lambda: master.PartialRunSetup(pb.master_pb2.PartialRunSetupRequest(
        session_handle=handle, feed=["x:0", "y:0", "c:0"], fetch=["r1:0", "r2:0"])), "feeds x, y, c; fetches r1, r2")
    if setup:
        run_handle = setup.partial_run_handle
        first = checks.ok("RunStep", lambda: run(partial_run_handle=run_handle, feed=[feed("x:0", 1.0),
                          feed("y:0", 2.0)], fetch=["r1:0"]), "partial run: r1 from x and y")
        if first:
            checks.expect(value_of(first.tensor[0].tensor) == 3.0, "the partial run fetches r1 = 3")
        checks.code("RunStep", lambda: run(partial_run_handle=run_handle, fetch=["r2:0"]), "INVALID_ARGUMENT",
                    "partial run: r2 needs c, not fed yet", contains="can't be computed")
        checks.code("RunStep", lambda: run(partial_run_handle=run_handle, feed=[feed("x:0", 5.0)]),
                    "INVALID_ARGUMENT", "partial run: x fed twice", contains="has already been fed")
        checks.code("RunStep", lambda: run(partial_run_handle=run_handle, fetch=["r1:0"]), "INVALID_ARGUMENT",
                    "partial run: r1 fetched twice", contains="has already been fetched")
        checks.code("RunStep", lambda: run(partial_run_handle=run_handle, feed=[feed("v:0", 5.0)]),
                    "INVALID_ARGUMENT", "partial run: a feed not named at setup", contains="partial_run_setup")
        last = checks.ok("RunStep", lambda: run(partial_run_handle=run_handle, feed=[feed("c:0", 4.0)],
                         fetch=["r2:0"]), "partial run: r2 once c is fed")
        if last:
            checks.expect(value_of(last.tensor[0].tensor) == 12.0, "the partial run fetches r2 = (1 + 2) * 4")
        checks.code("RunStep", lambda: run(partial_run_handle=run_handle, fetch=["r2:0"]), "INVALID_ARGUMENT",
                    "a complete partial run's handle", contains="PartialRunSetup")
    checks.code("PartialRunSetup", lambda: master.PartialRunSetup(pb.master_pb2.PartialRunSetupRequest(
        session_handle=handle, fetch=["nope:0"])), "NOT_FOUND", "a fetch not in the graph")

    options = pb.config_pb2.CallableOptions(feed=["x:0", "y:0"], fetch=["r1:0", "v_read:0"])
    made = checks.ok("MakeCallable", lambda: master.MakeCallable(pb.master_pb2.MakeCallableRequest(
        session_handle=handle, options=options)), "feeds x, y; fetches r1, v_read")
    if made:
        ran = checks.ok("RunCallable", lambda: master.RunCallable(pb.master_pb2.RunCallableRequest(
            session_handle=handle, handle=made.handle, feed=[scalar(5.0), scalar(6.0)])), "x = 5, y = 6")
        if ran:
            checks.expect([value_of(t) for t in ran.fetch] == [11.0, 2.0], "RunCallable fetches 11 and v = 2")
        checks.code("RunCallable", lambda: master.RunCallable(pb.master_pb2.RunCallableRequest(
            session_handle=handle, handle=made.handle, feed=[scalar(5.0)])), "INVALID_ARGUMENT", "one feed of two")
        checks.ok("ReleaseCallable", lambda: master.ReleaseCallable(pb.master_pb2.ReleaseCallableRequest(
            session_handle=handle, handle=made.handle)), "the callable")
        checks.code("RunCallable", lambda: master.RunCallable(pb.master_pb2.RunCallableRequest(
            session_handle=handle, handle=made.handle, feed=[scalar(5.0), scalar(6.0)])), "INVALID_ARGUMENT",
            "a released handle", contains="released")
        checks.ok("ReleaseCallable", lambda: master.ReleaseCallable(pb.master_pb2.ReleaseCallableRequest(
            session_handle=handle, handle=made.handle)), "a released handle again (no error, as TensorFlow)")
    checks.code("RunCallable", lambda: master.RunCallable(pb.master_pb2.RunCallableRequest(
        session_handle=handle, handle=99)), "INVALID_ARGUMENT", "a handle never made", contains="No such callable")
    checks.code("MakeCallable", lambda: master.MakeCallable(pb.master_pb2.MakeCallableRequest(
        session_handle=handle, options=pb.config_pb2.CallableOptions(fetch=["nope:0"]))), "NOT_FOUND",
        "a fetch not in the graph")

    # CleanupAll on the ps drops the variable the session initialised there.
    ps_worker = worker_service_of("ps")
    checks.ok("CleanupAll", lambda: ps_worker.CleanupAll(pb.worker_pb2.CleanupAllRequest()),
              "the ps's default container")
    checks.code("RunStep", lambda: run(fetch=["v_read:0"]), "FAILED_PRECONDITION",
                "reading the variable CleanupAll dropped")

    checks.ok("CloseSession", lambda: master.CloseSession(pb.master_pb2.CloseSessionRequest(session_handle=handle)),
              "the session")
    checks.code("RunStep", lambda: run(target=["v_init"]), "ABORTED", "a closed session", contains="not found")
    checks.code("CloseSession", lambda: master.CloseSession(pb.master_pb2.CloseSessionRequest(
        session_handle="no-such-session")), "ABORTED", "an unknown session")
    for rpc, call in [
            ("ExtendSession", lambda: master.ExtendSession(pb.master_pb2.ExtendSessionRequest(session_handle="gone"))),
            ("RunStep", lambda: master.RunStep(pb.master_pb2.RunStepRequest(session_handle="gone"))),
            ("PartialRunSetup", lambda: master.PartialRunSetup(pb.master_pb2.PartialRunSetupRequest(
                session_handle="gone"))),
            ("MakeCallable", lambda: master.MakeCallable(pb.master_pb2.MakeCallableRequest(session_handle="gone"))),
            ("RunCallable", lambda: master.RunCallable(pb.master_pb2.RunCallableRequest(session_handle="gone"))),
            ("ReleaseCallable", lambda: master.ReleaseCallable(pb.master_pb2.ReleaseCallableRequest(
                session_handle="gone")))]:
        checks.code(rpc, call, "ABORTED", "an unknown session", contains="not found")

    # Reset: every session is gone (ABORTED, so a monitored session recovers) and the ps's
    # containers are cleared.
    again = checks.ok("CreateSession", lambda: master.CreateSession(pb.master_pb2.CreateSessionRequest(
        graph_def=graph)), "the whole graph")
    if again is None:
        return
    handle = again.session_handle
    checks.ok("RunStep", lambda: run(target=["v_init"]), "initialises v before Reset")
    checks.ok("Reset", lambda: master.Reset(pb.master_pb2.ResetRequest()), "every session and container")
    checks.code("RunStep", lambda: run(fetch=["v_read:0"]), "ABORTED", "a session Reset dropped",
                contains="not found")
    after = checks.ok("CreateSession", lambda: master.CreateSession(pb.master_pb2.CreateSessionRequest(
        graph_def=graph)), "after Reset")
    if after:
        handle = after.session_handle
        checks.code("RunStep", lambda: run(fetch=["v_read:0"]), "FAILED_PRECONDITION",
                    "the variable Reset cleared on the ps is uninitialised")
        checks.ok("CloseSession", lambda: master.CloseSession(pb.master_pb2.CloseSessionRequest(
            session_handle=handle)), "the last session")


def drive_worker(checks, worker, pb):
    """Every WorkerService call on the ps task, as a TensorFlow master and peer would make it."""
    from tf_graphs import ps_partition, scalar, value_of

    status = checks.ok("GetStatus", lambda: worker.GetStatus(pb.worker_pb2.GetStatusRequest()), "the ps's devices")
    if status is None:
        return
    cpu = [d for d in status.device_attributes if d.name.endswith("/device:CPU:0")]
    checks.expect(len(cpu) == 1 and cpu[0].incarnation != 0, "GetStatus names the ps CPU with its incarnation")
    if not cpu:
        return
    ps_device, incarnation = cpu[0].name, cpu[0].incarnation
    client_device = "/job:worker/replica:0/task:0/device:CPU:0"
    session = "tf-protocol-session"
    checks.ok("CreateWorkerSession", lambda: worker.CreateWorkerSession(pb.worker_pb2.CreateWorkerSessionRequest(
        session_handle=session, server_def=pb.tensorflow_server_pb2.ServerDef(job_name="ps", task_index=0,
                                                                               protocol="grpc"),
        isolate_session_state=True, master_task="/job:worker/replica:0/task:0")), "a session for a master")

    graph, feed_key, fetch_key, peer_key = ps_partition(ps_device, incarnation, client_device, client_device)
    registered = checks.ok("RegisterGraph", lambda: worker.RegisterGraph(pb.worker_pb2.RegisterGraphRequest(
        session_handle=session, create_worker_session_called=True, graph_def=graph)),
        "a partition with client-terminated _Recv/_Send")
    if registered is None:
        return
    graph_handle = registered.graph_handle
    step_id = 0x100000000000123

    def run_graph(step, **fields):
        return worker.RunGraph(pb.worker_pb2.RunGraphRequest(
            session_handle=session, create_worker_session_called=True, graph_handle=graph_handle, step_id=step,
            send=[pb.named_tensor_pb2.NamedTensorProto(name=feed_key, tensor=scalar(3.0))], recv_key=[fetch_key],
            **fields), timeout=60)

    ran = checks.ok("RunGraph", lambda: run_graph(step_id), "x = 3 by rendezvous key, prod by recv_key")
    if ran:
        checks.expect(len(ran.recv) == 1 and ran.recv[0].name == fetch_key and value_of(ran.recv[0].tensor) == 6.0,
                      "RunGraph answers prod = 6 under its key")
    locality = pb.device_attributes_pb2.DeviceLocality(bus_id=1, numa_node=0)

    def recv(key, step=step_id):
        return worker.RecvTensor(pb.worker_pb2.RecvTensorRequest(
            step_id=step, rendezvous_key=key, dma_ok=True, client_locality=locality, server_locality=locality,
            request_id=7), timeout=30)

    got = checks.ok("RecvTensor", lambda: recv(peer_key), "the peer's tensor, with dma_ok and localities set")
    if got:
        checks.expect(value_of(got.tensor) == 6.0 and not got.is_dead, "RecvTensor answers prod = 6")
    wrong_incarnation = peer_key.replace(f";{incarnation:016x};", f";{incarnation ^ 1:016x};")
    checks.code("RecvTensor", lambda: recv(wrong_incarnation), "ABORTED", "a key with another incarnation",
                contains="incarnation")
    checks.code("RecvTensor", lambda: recv(peer_key.replace("/job:ps/", "/job:worker/", 1)), "INVALID_ARGUMENT",
                "a key whose sender is another task")
    checks.code("RecvTensor", lambda: recv("not-a-key"), "INVALID_ARGUMENT", "a malformed key")
    checks.ok("CleanupGraph", lambda: worker.CleanupGraph(pb.worker_pb2.CleanupGraphRequest(step_id=step_id)),
              "the step")

    checks.ok("Logging", lambda: worker.Logging(pb.worker_pb2.LoggingRequest(enable_rpc_logging=True)), "enable")
    ran = checks.ok("RunGraph", lambda: run_graph(step_id + 1), "a step while logging")
    logged = checks.ok("Logging", lambda: worker.Logging(pb.worker_pb2.LoggingRequest(
        fetch_step_id=[step_id + 1], disable_rpc_logging=True, clear=True)), "fetch the step's stats")
    if logged:
        checks.expect(len(logged.step) == 1 and logged.step[0].step_id == step_id + 1
                      and len(logged.step[0].step_stats.dev_stats) > 0, "Logging answers the step's stats")
    checks.ok("CleanupGraph", lambda: worker.CleanupGraph(pb.worker_pb2.CleanupGraphRequest(step_id=step_id + 1)),
              "the logged step")
    checks.code("RunGraph", lambda: run_graph(step_id + 2, is_partial=True), "UNIMPLEMENTED",
                "a partial run's RunGraph")

    checks.code("Tracing", lambda: worker.Tracing(pb.worker_pb2.TracingRequest()), "UNIMPLEMENTED",
                "no profiler (as TensorFlow's worker)", contains="Tracing")
    for rpc, request in [("RecvBuf", pb.worker_pb2.RecvBufRequest(step_id=1, buf_rendezvous_key="k")),
                         ("CompleteGroup", pb.worker_pb2.CompleteGroupRequest(group_key=1, group_size=2)),
                         ("CompleteInstance", pb.worker_pb2.CompleteInstanceRequest(name="c", instance_key=1)),
                         ("GetStepSequence", pb.worker_pb2.GetStepSequenceRequest(graph_key=[1])),
                         ("MarkRecvFinished", pb.worker_pb2.MarkRecvFinishedRequest(request_id=7))]:
        if not hasattr(worker, rpc):
            print(f"--   {rpc}: not a call of this TensorFlow's WorkerService")
            continue
        checks.code(rpc, lambda rpc=rpc, request=request: getattr(worker, rpc)(request), "UNIMPLEMENTED",
                    "collectives are not ClusterLab's", contains=rpc)

    checks.ok("DeregisterGraph", lambda: worker.DeregisterGraph(pb.worker_pb2.DeregisterGraphRequest(
        session_handle=session, create_worker_session_called=True, graph_handle=graph_handle)), "the partition")
    checks.code("DeregisterGraph", lambda: worker.DeregisterGraph(pb.worker_pb2.DeregisterGraphRequest(
        session_handle=session, create_worker_session_called=True, graph_handle=graph_handle)), "ABORTED",
        "a graph handle no longer registered", contains="not found")
    checks.code("RunGraph", lambda: run_graph(step_id + 3), "ABORTED", "a graph handle no longer registered",
                contains="not found")
    checks.ok("DeleteWorkerSession", lambda: worker.DeleteWorkerSession(pb.worker_pb2.DeleteWorkerSessionRequest(
        session_handle=session)), "the session")
    checks.code("RegisterGraph", lambda: worker.RegisterGraph(pb.worker_pb2.RegisterGraphRequest(
        session_handle=session, create_worker_session_called=True, graph_def=graph)), "ABORTED",
        "a deleted worker session", contains="not found")


class Modules:
    """TensorFlow's generated message modules, by short name."""

    def __init__(self):
        import importlib
        for name, package in [("master_pb2", "protobuf"), ("worker_pb2", "protobuf"), ("config_pb2", "protobuf"),
                              ("named_tensor_pb2", "protobuf"), ("tensorflow_server_pb2", "protobuf"),
                              ("master_service_pb2", "protobuf"), ("worker_service_pb2", "protobuf"),
                              ("graph_pb2", "framework"), ("device_attributes_pb2", "framework")]:
            setattr(self, name, importlib.import_module(f"tensorflow.core.{package}.{name}"))


def main():
    parser = protocol_lib.argument_parser(__doc__)
    args = parser.parse_args()

    proto_dir = protocol_lib.proto_dir_or_skip()
    protocol_lib.generate_stubs(proto_dir, args.gen, args.protoc, args.grpc_plugin)
    import grpc
    pb = Modules()
    checks = Checks(grpc)
    with protocol_lib.Cluster(args.clab, workers=1) as cluster:
        channels = {job: grpc.insecure_channel(cluster.address(job)) for job in ("ps", "worker")}

        def worker_service_of(job):
            return protocol_lib.service_stub(channels[job], pb.worker_service_pb2, "WorkerService")

        master = protocol_lib.service_stub(channels["worker"], pb.master_service_pb2, "MasterService")
        drive_master(checks, master, worker_service_of, cluster, pb)
        drive_worker(checks, worker_service_of("ps"), pb)
        for channel in channels.values():
            channel.close()

    print("\ncall                  outcomes seen")
    for rpc in sorted(checks.outcomes):
        print(f"{rpc:<21} {', '.join(checks.outcomes[rpc])}")
    if checks.failures:
        print(f"\nFAILED: {len(checks.failures)} check(s)")
        return 1
    print("\nall checks hold")
    return 0


if __name__ == "__main__":
    sys.exit(main())
